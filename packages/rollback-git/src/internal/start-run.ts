import git from 'isomorphic-git';
import type { ResolvedGitResetRollbackOptions } from '../git-reset-rollback-options.js';
import type { GitStartReport } from '../git-reset-rollback-types.js';
import { listFiles, rollbackError } from './errors.js';
import { ensureExcludes } from './excludes.js';
import { lstatOrUndefined } from './fs-ops.js';
import { gitArgs, type Repo } from './repo.js';
import { resolveRefFast } from './ref-read.js';
import { writeIndexFromCommit } from './index-write.js';
import { shortId } from '../short-id.js';
import { headOfRepositoryRoot, refExists } from './repo-checks.js';
import { repairOnResume } from './resume-repair.js';
import { exactExcludePattern, scanWorktree, untrackedPaths } from './worktree-scan.js';

/**
 * Refuses a working tree with uncommitted changes against `headOid` (within `bases`).
 *
 * @throws {LoopError} `DIRTY_WORKTREE` with `details.files`.
 */
export async function assertClean(repo: Repo, headOid: string, bases: readonly string[] | undefined): Promise<void> {
  const files = (await scanWorktree(repo, headOid, bases)).map((change) => change.path);
  if (files.length === 0) return;
  throw rollbackError(
    'DIRTY_WORKTREE',
    `working tree has uncommitted changes in ${listFiles(files)}; commit or ` +
      `stash them, or pass allowDirty: true (loop run --allow-dirty)`,
    { details: { files } },
  );
}

/** What {@link startRun} did, and what resume left for `recover`. */
export interface StartedRun {
  /** The report `start()` returns (its `repairs` are those of this start only). */
  readonly report: GitStartReport;
  /** A kill left the run branch's ref torn or missing: `recover(keptId)` restores it. */
  readonly branchPending: boolean;
  /** ...and the index torn with it: `recover` rebuilds it from the kept commit. */
  readonly indexPending: boolean;
}

/**
 * The rollback's start: on `resume`, repairs what a kill left in `.git` first; adds the excludes
 * (with `allowDirty`, the user's untracked files as exact paths too); then creates the run branch
 * at HEAD and points HEAD at it, or, resuming, checks the existing run branch out.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` (not a repository root), `BRANCH_EXISTS` (the branch
 *   exists and `resume` is false), `DIRTY_WORKTREE` (uncommitted changes without `allowDirty`).
 */
export async function startRun(
  repo: Repo,
  opts: ResolvedGitResetRollbackOptions,
  branchRef: string,
): Promise<StartedRun> {
  const { branch } = opts;
  const bases = opts.paths;
  const args = gitArgs(repo);
  const repairs: string[] = [];
  let branchPending = false;
  let indexPending = false;
  if (opts.resume && (await lstatOrUndefined(repo, '.git')) !== undefined) {
    const repair = await repairOnResume(repo, branchRef, opts.clock.now());
    repairs.push(...repair.repairs);
    branchPending = repair.branchPending;
    indexPending = repair.indexPending;
    if (branchPending) {
      const excludesAdded = await ensureExcludes(repo, opts.excludes);
      return {
        report: { branch, created: false, previousBranch: branchRef, headId: '', excludesAdded, repairs },
        branchPending,
        indexPending,
      };
    }
  }
  const headOid = await headOfRepositoryRoot(repo);
  // allowDirty: the user's untracked files are excluded (.git/info/exclude), so no candidate
  // commit takes them and no revert deletes them; tracked changes still join the first candidate.
  const userFiles = opts.allowDirty ? await untrackedPaths(repo, headOid, bases) : [];
  const excludesAdded = await ensureExcludes(repo, [...opts.excludes, ...userFiles.map(exactExcludePattern)]);
  const headRef = await git.resolveRef({ ...args, ref: 'HEAD', depth: 2 });
  const previousBranch = headRef.startsWith('refs/heads/') ? headRef : undefined;

  if (await refExists(repo, branchRef)) {
    if (!opts.resume) {
      throw rollbackError(
        'BRANCH_EXISTS',
        `run branch ${branch} already exists; pass resume: true to continue that ` +
          `run (loop resume from the CLI), choose another branch (tag), or delete ` +
          `it with git branch -D ${branch}`,
        { details: { branch } },
      );
    }
    if (previousBranch !== branchRef) {
      if (!opts.allowDirty) await assertClean(repo, headOid, bases);
      await git.checkout({ ...args, ref: branchRef });
    }
    const tip = await git.resolveRef({ ...args, ref: branchRef });
    return {
      report: { branch, created: false, previousBranch, headId: tip, excludesAdded, repairs },
      branchPending,
      indexPending,
    };
  }

  if (!opts.allowDirty) await assertClean(repo, headOid, bases);
  await git.writeRef({ ...args, ref: branchRef, value: headOid });
  await git.writeRef({ ...args, ref: 'HEAD', value: branchRef, symbolic: true, force: true });
  return {
    report: { branch, created: true, previousBranch, headId: headOid, excludesAdded, repairs },
    branchPending,
    indexPending,
  };
}

/** What a kill left torn at start, for recover to repair: the run branch's ref, the index. */
export interface PendingRepairs {
  /** The run branch's ref is torn or missing: recover restores it to the kept commit. */
  branch: boolean;
  /** The index is torn with it: recover rebuilds it from the kept commit. */
  index: boolean;
}

/**
 * recover's repairs of what start left pending: the run branch's ref written to `kept` (checked out
 * again when HEAD was moved to another branch by hand, after the same clean-tree check start makes),
 * the index rebuilt from `kept`. Clears each flag as its repair is made and pushes its line to `repairs`.
 */
export async function repairPending(
  repo: Repo,
  pending: PendingRepairs,
  o: { branch: string; branchRef: string; kept: string; allowDirty: boolean; bases: readonly string[] | undefined },
  repairs: string[],
): Promise<void> {
  if (pending.branch) {
    await git.writeRef({ ...gitArgs(repo), ref: o.branchRef, value: o.kept, force: true });
    pending.branch = false;
    const head = await resolveRefFast(repo, 'HEAD', 2);
    if (head !== o.branchRef) {
      // HEAD was on another branch (checked out by hand): take the run branch back as start does.
      if (!o.allowDirty) await assertClean(repo, await resolveRefFast(repo, 'HEAD'), o.bases);
      await git.checkout({ ...gitArgs(repo), ref: o.branchRef });
    }
    repairs.push(`run branch ${o.branch} restored to ${shortId(o.kept)} from the last keep`);
  }
  if (pending.index) {
    await writeIndexFromCommit(repo, o.kept);
    pending.index = false;
    repairs.push(`index (torn) rebuilt from ${shortId(o.kept)}`);
  }
}
