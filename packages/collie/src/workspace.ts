import { join } from 'node:path';
import type { MaybePromise } from '@loop/core';
import { addLocalExclude, addWorktree, headSha } from '@loop/rollback-git/git';

/** Where a run works: the seed's isolated worktree. */
export interface Workspace {
  /** Used in errors and logs. */
  readonly name: string;
  /** Creates (or finds) the run's working copy and returns its absolute path. Must be idempotent. */
  readonly prepare: (runId: string) => MaybePromise<string>;
  /** The working copy's HEAD commit, if it has one. */
  readonly head?: (path: string) => MaybePromise<string>;
}

/** Works directly in `dir` (no isolation): for tests and for projects that are not git repositories. */
export function createDirectoryWorkspace(dir: string): Workspace {
  return { name: `directory(${dir})`, prepare: () => dir };
}

/**
 * The seed's worktree: `git worktree add <repo>/.worktrees/autoiter-<runId> -b autoiter/<runId>`.
 * The user's checkout is never touched (`/.worktrees/` is added to the repository's local
 * `info/exclude`, so `git status` stays clean); the worktree is preserved at the end (never merged
 * or removed: review it, then `git worktree remove .worktrees/autoiter-<runId>`). Idempotent: an
 * existing worktree directory is reused.
 *
 * Git runs through `@loop/rollback-git` (`addWorktree`, `addLocalExclude`, `headSha`).
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when git fails (the message carries git's stderr).
 */
export function createGitWorktree(options: { repoDir: string }): Workspace {
  const repo = { cwd: options.repoDir };
  return {
    name: `git-worktree(${options.repoDir})`,
    prepare: async (runId) => {
      // Keep the user's `git status` clean: .worktrees/ goes to the repository's local exclude file.
      await addLocalExclude(repo, '/.worktrees/');
      return (await addWorktree(repo, join(options.repoDir, '.worktrees', `autoiter-${runId}`), `autoiter/${runId}`))
        .path;
    },
    head: (path) => headSha({ cwd: path }),
  };
}
