/**
 * @loop/rollback-git: the git-reset rollback for loop, on isomorphic-git (no git binary needed).
 * Each candidate is committed on a run branch (`auto-iterate/nov30`); a kept one stays there, a
 * discarded one is saved under `refs/loop/discarded/<iteration>` and reset away. Resets touch only
 * the paths that differ between the two commits plus the working-tree changes (within `paths`
 * when given), and are verified by hash, falling back once to a full checkout.
 *
 * @example
 * import { createGitResetRollback } from '@loop/rollback-git';
 *
 * const rollback = createGitResetRollback({ dir: process.cwd(), branch: 'auto-iterate/nov30', paths: ['train.py'] });
 * await rollback.start();                                  // creates and checks out the run branch
 * const cp = await rollback.checkpoint(1);                 // { iteration: 1, id: <HEAD oid> }
 * // ... the proposer edits train.py ...
 * const id = await rollback.commit(cp, { iteration: 1, attempt: 0, description: 'lr 3e-4' });
 * // ... evaluate; worse? ...
 * await rollback.revert(cp, { iteration: 1, candidateId: id }); // train.py is back, verified
 *
 * @packageDocumentation
 */
export { createGitResetRollback } from './git-reset-rollback.js';
export type {
  ChangedEntry,
  GitResetRollback,
  GitStartReport,
  GitRestoreReport,
  GitWatchReport,
} from './git-reset-rollback.js';
export { gitResetRollbackOptionsSchema, branchNameProblem } from './git-reset-rollback-options.js';
export type {
  GitResetRollbackOptions,
  ResolvedGitResetRollbackOptions,
  GitAuthor,
} from './git-reset-rollback-options.js';
export type { GitFs, GitFsPromises, GitFsStats } from './git-fs.js';
export { shortId } from './short-id.js';
export { describeRepairs } from './internal/resume-repair.js';
export { readDiscardedRefs } from './read-discarded-refs.js';
export { gitDirOf } from './git-dir-of.js';
export type { DiscardedRef } from './read-discarded-refs.js';
export { readDiscardedDiffs } from './read-discarded-diffs.js';
export type { DiscardedDiffText } from './read-discarded-diffs.js';
export { runGit, runGitBuffer, readFileAtRevs, gitLines } from './git-cli.js';
export { findBlobs, gitBlobId } from './find-blobs.js';
export type { GitCliContext, RunGitOptions } from './git-cli.js';
export {
  headSha,
  isDirty,
  commitAll,
  isAncestor,
  squashSince,
  discardChanges,
  resetHard,
  trailerValue,
  findCommitByTrailer,
  commitsBetween,
  commitFiles,
  changedFilesBetween,
  changedFilesSince,
  revertCommits,
} from './commit-ops.js';
export type { GitChangedFile } from './commit-ops.js';
export { addWorktree, removeWorktree, addLocalExclude } from './git-worktree.js';
export type { AddWorktreeReport } from './git-worktree.js';
export {
  initBareRepository,
  hasCommit,
  fetchCommit,
  addDetachedWorktree,
  removeDetachedWorktree,
} from './remote-ops.js';
export { commitPaths } from './commit-paths.js';
export type { CommitPathsReport } from './commit-paths.js';
