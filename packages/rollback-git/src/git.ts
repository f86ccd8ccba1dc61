/**
 * @loop/rollback-git/git: the git command helpers the rollback is built on, for hosts that drive git
 * themselves (collie's stages, the CLI's diff and status, auto-iterate's archive, the remote workers'
 * clones). They run the `git` binary (`runGit`) or isomorphic-git and throw `LoopError`s naming the
 * command.
 *
 * @example
 * import { headSha, isDirty, commitAll } from '@loop/rollback-git/git';
 *
 * const ctx = { dir: process.cwd() };
 * if (await isDirty(ctx)) await commitAll(ctx, 'wip');
 * console.log(await headSha(ctx));
 *
 * @packageDocumentation
 * @module @loop/rollback-git/git
 */
export { gitDirOf } from './git-dir-of.js';
export { runGit, runGitBuffer, readFileAtRevs, gitLines } from './git-cli.js';
export type { GitCliContext, RunGitOptions } from './git-cli.js';
export { findBlobs, gitBlobId } from './find-blobs.js';
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
