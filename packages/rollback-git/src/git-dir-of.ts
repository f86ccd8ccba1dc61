import nodeFs from 'node:fs';
import type { GitFs } from './git-fs.js';
import { resolveGitDirs } from './internal/git-dirs.js';

/**
 * The git directory of the working tree at `dir` that holds its own HEAD, index and the loop's
 * per-workspace files (the workspace lock `loop-workspace`): `<dir>/.git` in a plain repository;
 * in a submodule or a linked worktree (`.git` is a file `gitdir: <path>`), the directory it names.
 * Synchronous; `<dir>/.git` when `.git` is missing or not readable (the rollback then reports it).
 *
 * @param dir - Absolute working-tree root.
 */
export function gitDirOf(dir: string, fs: GitFs = nodeFs): string {
  return resolveGitDirs(fs, dir.length > 1 ? dir.replace(/\/+$/, '') : dir).worktree;
}
