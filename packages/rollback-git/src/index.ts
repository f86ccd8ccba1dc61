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
 * @module @loop/rollback-git
 */
export { createGitResetRollback } from './git-reset-rollback.js';
export type {
  ChangedEntry,
  GitResetRollback,
  GitStartReport,
  GitRestoreReport,
  GitWatchReport,
} from './git-reset-rollback-types.js';
export { gitResetRollbackOptionsSchema } from './git-reset-rollback-options.js';
export type { GitResetRollbackOptions, GitAuthor } from './git-reset-rollback-options.js';
export type { GitFs, GitFsPromises, GitFsStats } from './git-fs.js';
export { shortId } from './short-id.js';
export { describeRepairs } from './describe-repairs.js';
export { readDiscardedRefs } from './read-discarded-refs.js';
export type { DiscardedRef } from './read-discarded-refs.js';
export { readDiscardedDiffs } from './read-discarded-diffs.js';
export type { DiscardedDiffText } from './read-discarded-diffs.js';
