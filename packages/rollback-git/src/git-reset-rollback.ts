import git from 'isomorphic-git';
import { parseOptions, type LoopErrorCode } from '@loop/core';
import { gitResetRollbackOptionsSchema, type GitResetRollbackOptions } from './git-reset-rollback-options.js';
import { commitCandidate } from './internal/commit-candidate.js';
import { saveDiscarded } from './internal/discarded-refs.js';
import { rescueWorktree } from './internal/rescue-commit.js';
import { foreignCode, listFiles, rollbackError, toLoopError } from './internal/errors.js';
import { ensureExcludes } from './internal/excludes.js';
import { gitArgs, openRepo } from './internal/repo.js';
import { expandCommitId, headOfRepositoryRoot, refExists } from './internal/repo-checks.js';
import { resetBranch } from './internal/reset-branch.js';
import { repairOnResume } from './internal/resume-repair.js';
import { writeIndexFromCommit } from './internal/index-write.js';
import { lstatOrUndefined } from './internal/fs-ops.js';
import { createSerial } from './internal/serial.js';
import { exactExcludePattern, scanWorktree, untrackedPaths } from './internal/worktree-scan.js';
import { shortId } from './short-id.js';

import type { GitResetRollback, GitRestoreReport, GitStartReport } from './git-reset-rollback-types.js';

export type { GitResetRollback, GitRestoreReport, GitStartReport } from './git-reset-rollback-types.js';

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
  /** What resume repaired (start's repairs, then recover's), in order. */
  const repairs: string[] = [];
  /** A kill left the run branch's ref torn or missing: recover(keptId) restores it. */
  let branchPending = false;
  /** ...and the index torn with it: recover rebuilds it from the kept commit. */
  let indexPending = false;

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
    if (opts.resume && (await lstatOrUndefined(repo, '.git'))?.isDirectory()) {
      const repair = await repairOnResume(repo, branchRef, opts.clock.now());
      repairs.push(...repair.repairs);
      branchPending = repair.branchPending;
      indexPending = repair.indexPending;
      if (branchPending) {
        const excludesAdded = await ensureExcludes(repo, opts.excludes);
        return { branch, created: false, previousBranch: branchRef, headId: '', excludesAdded, repairs: [...repairs] };
      }
    }
    const headOid = await headOfRepositoryRoot(repo);
    // allowDirty: the user's untracked files are excluded (.git/info/exclude), so no candidate
    // commit takes them and no revert deletes them; tracked changes still join the first candidate.
    const userFiles = opts.allowDirty ? await untrackedPaths(repo, headOid, bases) : [];
    const excludesAdded = await ensureExcludes(repo, [...opts.excludes, ...userFiles.map(exactExcludePattern)]);
    const headRef = await git.resolveRef({ ...args(), ref: 'HEAD', depth: 2 });
    const previousBranch = headRef.startsWith('refs/heads/') ? headRef : undefined;

    if (await refExists(repo, branchRef)) {
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
      return { branch, created: false, previousBranch, headId: tip, excludesAdded, repairs: [...repairs] };
    }

    if (!opts.allowDirty) await assertClean(headOid);
    await git.writeRef({ ...args(), ref: branchRef, value: headOid });
    await git.writeRef({ ...args(), ref: 'HEAD', value: branchRef, symbolic: true, force: true });
    return { branch, created: true, previousBranch, headId: headOid, excludesAdded, repairs: [...repairs] };
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
    if (branchPending) {
      throw rollbackError(
        'RESUME_MISMATCH',
        `the run branch ${branch} lost its ref (a kill while it was written); resume restores it from the last keep in results.tsv: call recover(keptId) first (the engine does on resume), or point it by hand with git branch -f ${branch} <last kept commit>`,
        { details: { branch } },
      );
    }
    const head = await git.resolveRef({ ...args(), ref: 'HEAD', depth: 2 });
    if (head !== branchRef) {
      throw rollbackError(
        'RESTORE_FAILED',
        `HEAD is ${head.startsWith('refs/') ? `on ${head}` : `detached at ${shortId(head)}`}, not on the run branch ${branch}; something else checked out another branch during the run. Run git checkout ${branch} (after saving any work), then resume`,
        { details: { head, branch } },
      );
    }
  };

  const expandCommit = (id: string, code: LoopErrorCode, what: string): Promise<string> => expandCommitId(repo, id, code, what, branch);

  const signature = () => ({
    name: opts.author.name,
    email: opts.author.email,
    timestamp: Math.floor(opts.clock.now() / 1000),
    timezoneOffset: 0,
  });

  /**
   * Resets the branch from its tip to `targetOid`, first keeping what the reset discards reachable
   * as `refs/loop/discarded/<name>`: the tip when it is not the target, or, when the working tree
   * holds files in no commit (created or changed after the candidate commit), a rescue commit on
   * top of the tip holding them, so nothing a reset removes is lost.
   */
  const saveThenReset = async (
    operation: GitRestoreReport['operation'],
    name: string,
    tip: string,
    targetOid: string,
    save: string | undefined,
  ): Promise<{ ref: string | undefined; rescued: readonly string[] }> => {
    const changes = await scanWorktree(repo, tip, bases);
    const rescue = await rescueWorktree(repo, tip, changes, signature(), `${operation} of ${branch} from ${shortId(tip)} to ${shortId(targetOid)}`);
    const keep = rescue?.oid ?? save;
    const ref = keep === undefined ? undefined : await saveDiscarded(repo, name, keep);
    const report = await resetBranch(repo, branchRef, targetOid, bases, { fromOid: tip, changes });
    lastRestore = { ...report, operation };
    return { ref, rescued: rescue?.paths ?? [] };
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
            signature: signature(),
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
          await saveThenReset('revert', String(info.iteration), tip, checkpoint.id, candidate !== checkpoint.id ? candidate : undefined);
        }),
      ),

    restoreBest: (bestId) =>
      serial(() =>
        guard('RESTORE_FAILED', `restoreBest(${bestId})`, inspect, async () => {
          await ready();
          const best = await expandCommit(bestId, 'RESTORE_FAILED', 'restoreBest: best id');
          const tip = await tipOf();
          await saveThenReset('restoreBest', 'before-restore-best', tip, best, tip !== best ? tip : undefined);
        }),
      ),

    recover: (keptId) =>
      serial(() =>
        guard('RESUME_MISMATCH', `recover(${keptId})`, inspect, async () => {
          await ensureStarted();
          const kept = await expandCommit(keptId, 'RESUME_MISMATCH', 'recover: kept id');
          if (branchPending) {
            await git.writeRef({ ...args(), ref: branchRef, value: kept, force: true });
            branchPending = false;
            const head = await git.resolveRef({ ...args(), ref: 'HEAD', depth: 2 });
            if (head !== branchRef) {
              // HEAD was on another branch (checked out by hand): take the run branch back as start does.
              if (!opts.allowDirty) await assertClean(await git.resolveRef({ ...args(), ref: 'HEAD' }));
              await git.checkout({ ...args(), ref: branchRef });
            }
            repairs.push(`run branch ${branch} restored to ${shortId(kept)} from the last keep`);
          }
          if (indexPending) {
            await writeIndexFromCommit(repo, kept);
            indexPending = false;
            repairs.push(`index (torn) rebuilt from ${shortId(kept)}`);
          }
          await ready();
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
          }
          const { ref, rescued } = await saveThenReset('recover', 'recovered', tip, kept, tip !== kept ? tip : undefined);
          if (tip !== kept) repairs.push(`orphan candidate ${shortId(tip)} (committed, not recorded as kept) saved as ${ref}`);
          if (rescued.length > 0) repairs.push(`${rescued.length} working-tree file${rescued.length === 1 ? '' : 's'} in no commit saved as ${ref}`);
          const touched = lastRestore?.paths.length ?? 0;
          if (touched > 0) repairs.push(`${touched} path${touched === 1 ? '' : 's'} reset to ${shortId(kept)}${lastRestore?.fallback ? ' (full checkout)' : ''}`);
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

    repairs: () => [...repairs],

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
