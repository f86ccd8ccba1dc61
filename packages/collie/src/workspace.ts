import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { MaybePromise } from '@loop/core';
import { git } from './git.js';

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
 * @throws {LoopError} `NOT_A_REPOSITORY` when git fails (the message carries git's stderr).
 */
export function createGitWorktree(options: { repoDir: string }): Workspace {
  // Not a commit: the clock only matters for commit dates, so the real time is fine here.
  const run = async (cwd: string, ...args: string[]) => (await git({ cwd, now: Date.now() }, ...args)).trim();
  return {
    name: `git-worktree(${options.repoDir})`,
    prepare: async (runId) => {
      const path = join(options.repoDir, '.worktrees', `autoiter-${runId}`);
      // Keep the user's `git status` clean: .worktrees/ goes to the repository's local exclude file.
      const exclude = resolve(options.repoDir, await run(options.repoDir, 'rev-parse', '--git-path', 'info/exclude'));
      const current = await readFile(exclude, 'utf8').catch(() => '');
      if (!current.split('\n').some((l) => l.trim() === '/.worktrees/')) {
        await mkdir(dirname(exclude), { recursive: true });
        await appendFile(exclude, `${current === '' || current.endsWith('\n') ? '' : '\n'}/.worktrees/\n`);
      }
      if (!existsSync(path)) await run(options.repoDir, 'worktree', 'add', path, '-b', `autoiter/${runId}`);
      return path;
    },
    head: (path) => run(path, 'rev-parse', 'HEAD'),
  };
}
