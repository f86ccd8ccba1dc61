import { dirname, join } from 'node:path';
import git from 'isomorphic-git';
import { parseOptions, type LoopErrorCode } from '@loop/core';
import { gitResetRollbackOptionsSchema, type GitResetRollbackOptions } from './git-reset-rollback-options.js';
import { commitCandidate } from './internal/commit-candidate.js';
import { saveDiscarded } from './internal/discarded-refs.js';
import { foreignCode, listFiles, rollbackError, toLoopError } from './internal/errors.js';
import { ensureExcludes } from './internal/excludes.js';
import { lstatOrUndefined } from './internal/fs-ops.js';
import { gitArgs, openRepo } from './internal/repo.js';
import { resetBranch } from './internal/reset-branch.js';
import { createSerial } from './internal/serial.js';
import { exactExcludePattern, scanWorktree, untrackedPaths } from './internal/worktree-scan.js';
import { shortId } from './short-id.js';

import type { GitResetRollback, GitRestoreReport, GitStartReport } from './git-reset-rollback-types.js';

export type { GitResetRollback, GitRestoreReport, GitStartReport } from './git-reset-rollback-types.js';

/** The nearest folder above the repository's `dir` holding a `.git`, or `undefined`. */
async function enclosingRepository(repo: ReturnType<typeof openRepo>): Promise<string | undefined> {
  for (let d = dirname(repo.dir); ; d = dirname(d)) {
    try {
      await repo.fs.promises.lstat(join(d, '.git'));
      return d;
    } catch {
      if (dirname(d) === d) return undefined;
    }
  }
}

/**
 * Creates the git-reset rollback: each candidate is a commit on the run branch; a discarded one is
 * reset away in time proportional to the files it changed (with `paths`) and verified by hash.
 *
 * @param options - See {@link GitResetRollbackOptions}; validated with
 *   {@link gitResetRollbackOptionsSchema}.
 * @throws {ConfigError} `CONFIG_INVALID` naming the invalid field (for example `dir: must be an absolute path`).
 */
export function createGitResetRollback(options: GitResetRollbackOptions): GitResetRollback {
  const opts = parseOptions(gitResetRollbackOptionsSchema, options, 'rollback-git');
  const repo = openRepo(opts.fs, opts.dir);
  const branch = opts.branch;
  const branchRef = `refs/heads/${branch}`;
  const bases = opts.paths;
  const serial = createSerial();
  let started: Promise<GitStartReport> | undefined;
  let lastRestore: GitRestoreReport | undefined;

  const args = () => gitArgs(repo);

  const guard = async <T>(
    fallback: LoopErrorCode,
    doing: string,
    advice: string,
    task: () => Promise<T>,
  ): Promise<T> => {
    try {
      return await task();
    } catch (error) {
      throw toLoopError(error, fallback, doing, advice);
    }
  };

  const refExists = async (ref: string): Promise<boolean> => {
    try {
      await git.resolveRef({ ...args(), ref });
      return true;
    } catch (error) {
      if (foreignCode(error) === 'NotFoundError') return false;
      throw error;
    }
  };

  const assertClean = async (headOid: string): Promise<void> => {
    const files = (await scanWorktree(repo, headOid, bases)).map((change) => change.path);
    if (files.length === 0) return;
    throw rollbackError(
      'DIRTY_WORKTREE',
      `working tree has uncommitted changes in ${listFiles(files)}; commit or stash them, or pass allowDirty: true`,
      { details: { files } },
    );
  };

  const doStart = async (): Promise<GitStartReport> => {
    const dotGit = await lstatOrUndefined(repo, '.git');
    if (dotGit === undefined || !dotGit.isDirectory()) {
      const repository = await enclosingRepository(repo);
      throw rollbackError(
        'NOT_A_REPOSITORY',
        repository === undefined
          ? `no git repository at ${repo.dir} (no .git directory); run git init and commit there, or set dir to the working-tree root`
          : `${repo.dir} is inside the git repository ${repository}, not its root; set dir to ${repository} (do not run git init here: that would make a nested repository)`,
        { details: { dir: repo.dir, ...(repository === undefined ? {} : { repository }) } },
      );
    }
    let headOid: string;
    try {
      headOid = await git.resolveRef({ ...args(), ref: 'HEAD' });
    } catch (error) {
      throw rollbackError('NOT_A_REPOSITORY', `the repository at ${repo.dir} has no commit yet; make an initial commit first`, {
        cause: error,
        details: { dir: repo.dir },
      });
    }
    // allowDirty: the user's untracked files are excluded (.git/info/exclude), so no candidate
    // commit takes them and no revert deletes them; tracked changes still join the first candidate.
    const userFiles = opts.allowDirty ? await untrackedPaths(repo, headOid, bases) : [];
    const excludesAdded = await ensureExcludes(repo, [...opts.excludes, ...userFiles.map(exactExcludePattern)]);
    const headRef = await git.resolveRef({ ...args(), ref: 'HEAD', depth: 2 });
    const previousBranch = headRef.startsWith('refs/heads/') ? headRef : undefined;

    if (await refExists(branchRef)) {
      if (!opts.resume) {
        throw rollbackError(
          'BRANCH_EXISTS',
          `run branch ${branch} already exists; pass resume: true to continue that run (loop resume from the CLI), choose another branch (tag), or delete it with git branch -D ${branch}`,
          { details: { branch } },
        );
      }
      if (previousBranch !== branchRef) {
        if (!opts.allowDirty) await assertClean(headOid);
        await git.checkout({ ...args(), ref: branchRef });
      }
      const tip = await git.resolveRef({ ...args(), ref: branchRef });
      return { branch, created: false, previousBranch, headId: tip, excludesAdded };
    }

    if (!opts.allowDirty) await assertClean(headOid);
    await git.writeRef({ ...args(), ref: branchRef, value: headOid });
    await git.writeRef({ ...args(), ref: 'HEAD', value: branchRef, symbolic: true, force: true });
    return { branch, created: true, previousBranch, headId: headOid, excludesAdded };
  };

  const ensureStarted = (): Promise<GitStartReport> => {
    if (started === undefined) {
      started = guard('NOT_A_REPOSITORY', `start in ${repo.dir}`, 'check that dir is a git working tree', doStart);
      started.catch(() => {
        started = undefined; // let the caller fix the cause and retry
      });
    }
    return started;
  };

  const tipOf = (): Promise<string> => git.resolveRef({ ...args(), ref: branchRef });

  /** Starts if needed, then checks HEAD is still the run branch (nothing else checked out another one). */
  const ready = async (): Promise<void> => {
    await ensureStarted();
    const head = await git.resolveRef({ ...args(), ref: 'HEAD', depth: 2 });
    if (head !== branchRef) {
      throw rollbackError(
        'RESTORE_FAILED',
        `HEAD is ${head.startsWith('refs/') ? `on ${head}` : `detached at ${shortId(head)}`}, not on the run branch ${branch}; something else checked out another branch during the run. Run git checkout ${branch} (after saving any work), then resume`,
        { details: { head, branch } },
      );
    }
  };

  const expandCommit = async (id: string, code: LoopErrorCode, what: string): Promise<string> => {
    if (!/^[0-9a-f]{4,40}$/i.test(id)) {
      throw rollbackError(code, `${what} ${JSON.stringify(id)} is not a commit id (4 to 40 hex characters)`, { details: { id } });
    }
    try {
      const oid = await git.expandOid({ ...args(), oid: id.toLowerCase() });
      await git.readCommit({ ...args(), oid });
      return oid;
    } catch (error) {
      const reason = foreignCode(error) === 'AmbiguousError' ? 'is ambiguous' : 'is not a commit in this repository';
      throw rollbackError(code, `${what} ${id} ${reason}; check the id in results.tsv against git log ${branch}`, {
        cause: error,
        details: { id },
      });
    }
  };

  const reset = async (operation: GitRestoreReport['operation'], targetOid: string): Promise<void> => {
    const report = await resetBranch(repo, branchRef, targetOid, bases);
    lastRestore = { ...report, operation };
  };

  const inspect = `inspect the repository with git status and git log ${branch}`;

  const rollback: GitResetRollback = {
    name: 'git-reset',
    branch,
    branchRef,
    start: () => serial(ensureStarted),

    abandon: () =>
      serial(async () => {
        const report = started === undefined ? undefined : await started.catch(() => undefined);
        const previous = report?.previousBranch;
        if (report === undefined || !report.created || previous === undefined) return false;
        return guard('RESTORE_FAILED', 'abandon', inspect, async () => {
          const head = await git.resolveRef({ ...args(), ref: 'HEAD', depth: 2 });
          if (head !== branchRef || (await tipOf()) !== report.headId) return false;
          await git.writeRef({ ...args(), ref: 'HEAD', value: previous, symbolic: true, force: true });
          await git.deleteRef({ ...args(), ref: branchRef });
          started = undefined;
          return true;
        });
      }),

    checkpoint: (iteration) =>
      serial(() =>
        guard('NOT_A_REPOSITORY', `checkpoint ${iteration}`, inspect, async () => {
          await ready();
          return { iteration, id: await tipOf() };
        }),
      ),

    commit: (checkpoint, info) =>
      serial(() =>
        guard('RESTORE_FAILED', `commit of iteration ${info.iteration}`, `the candidate was not recorded; ${inspect}`, async () => {
          await ready();
          return commitCandidate(repo, {
            branchRef,
            bases,
            parent: checkpoint.id,
            message: `${opts.messagePrefix}${info.description.replace(/\n+$/, '')}\n`,
            signature: {
              name: opts.author.name,
              email: opts.author.email,
              timestamp: Math.floor(opts.clock.now() / 1000),
              timezoneOffset: 0,
            },
          });
        }),
      ),

    keep: (checkpoint, candidateId) =>
      serial(() =>
        guard('RESTORE_FAILED', `keep of iteration ${checkpoint.iteration}`, inspect, async () => {
          await ready();
          const tip = await tipOf();
          if (candidateId === undefined) return tip;
          if (tip !== candidateId) {
            throw rollbackError(
              'RESTORE_FAILED',
              `keep: run branch ${branch} points at ${shortId(tip)}, not at the candidate ${shortId(candidateId)}; something else moved the branch (another git command?); ${inspect}`,
              { details: { branch, tip, candidateId } },
            );
          }
          return candidateId;
        }),
      ),

    revert: (checkpoint, info) =>
      serial(() =>
        guard('RESTORE_FAILED', `revert of iteration ${info.iteration}`, inspect, async () => {
          await ready();
          const tip = await tipOf();
          const candidate = info.candidateId ?? tip;
          if (candidate !== checkpoint.id) await saveDiscarded(repo, String(info.iteration), candidate);
          await reset('revert', checkpoint.id);
        }),
      ),

    restoreBest: (bestId) =>
      serial(() =>
        guard('RESTORE_FAILED', `restoreBest(${bestId})`, inspect, async () => {
          await ready();
          const best = await expandCommit(bestId, 'RESTORE_FAILED', 'restoreBest: best id');
          const tip = await tipOf();
          if (tip !== best) await saveDiscarded(repo, 'before-restore-best', tip);
          await reset('restoreBest', best);
        }),
      ),

    recover: (keptId) =>
      serial(() =>
        guard('RESUME_MISMATCH', `recover(${keptId})`, inspect, async () => {
          await ready();
          const kept = await expandCommit(keptId, 'RESUME_MISMATCH', 'recover: kept id');
          const tip = await tipOf();
          if (tip !== kept) {
            const onBranch = await git.isDescendent({ ...args(), oid: tip, ancestor: kept, depth: -1 });
            if (!onBranch) {
              throw rollbackError(
                'RESUME_MISMATCH',
                `recover: kept commit ${shortId(kept)} is not on run branch ${branch} (tip ${shortId(tip)}); results.tsv belongs to another run or the branch was rewritten; ${inspect}`,
                { details: { keptId: kept, tip, branch } },
              );
            }
            await saveDiscarded(repo, 'recovered', tip);
          }
          await reset('recover', kept);
        }),
      ),

    currentId: () =>
      serial(() =>
        guard('NOT_A_REPOSITORY', 'currentId', inspect, async () => {
          await ready();
          return git.resolveRef({ ...args(), ref: 'HEAD' });
        }),
      ),

    lastRestore: () => lastRestore,

    changedPaths: () =>
      serial(() =>
        guard('NOT_A_REPOSITORY', 'changedPaths', inspect, async () => {
          await ready();
          return (await scanWorktree(repo, await tipOf(), bases)).map((change) => change.path).sort();
        }),
      ),
  };
  return rollback;
}
