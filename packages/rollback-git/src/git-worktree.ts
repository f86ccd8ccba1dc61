import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { runGit, type GitCliContext } from './git-cli.js';

/** What {@link addWorktree} did. */
export interface AddWorktreeReport {
  /** The worktree's absolute path. */
  readonly path: string;
  /** True when it was created now; false when the directory already existed (reused). */
  readonly created: boolean;
}

/**
 * Creates a linked worktree at `path` on a new branch `branch` starting at the repository's HEAD
 * (`git worktree add <path> -b <branch>`, run in `ctx.cwd`, the repository). The user's checkout
 * is not touched. Idempotent: when `path` exists it is reused as it is. isomorphic-git has no
 * worktree support (see `GitCliContext`), hence the CLI.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` carrying git's stderr (not a repository, no commit yet,
 *   the branch exists without the worktree).
 */
export async function addWorktree(ctx: GitCliContext, path: string, branch: string): Promise<AddWorktreeReport> {
  if (existsSync(path)) return { path, created: false };
  await runGit(ctx, ['worktree', 'add', '-q', path, '-b', branch], {
    advice:
      `check that ${ctx.cwd} is a git repository with a commit and that ` +
      `branch ${branch} does not exist yet (git branch -D ${branch})`,
  });
  return { path, created: true };
}

/**
 * Removes the linked worktree at `path` (`git worktree remove`; with `force`, also when it has
 * changes) and prunes stale worktree records. The branch stays. Idempotent: a missing worktree is
 * only pruned.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` carrying git's stderr (for example uncommitted changes
 *   without `force`).
 */
export async function removeWorktree(
  ctx: GitCliContext,
  path: string,
  options: { readonly force?: boolean } = {},
): Promise<void> {
  if (existsSync(path)) await runGit(ctx, ['worktree', 'remove', ...(options.force ? ['--force'] : []), path]);
  await runGit(ctx, ['worktree', 'prune']);
}

/**
 * Adds `pattern` as a line of the repository's local exclude file (`git rev-parse --git-path
 * info/exclude`: shared by every worktree of the repository; the user's `.gitignore` is left
 * alone). Idempotent: a line already present is not repeated.
 *
 * @returns true when the line was added now.
 * @throws {LoopError} `NOT_A_REPOSITORY` when `ctx.cwd` is not in a git repository.
 */
export async function addLocalExclude(ctx: GitCliContext, pattern: string): Promise<boolean> {
  const file = resolve(ctx.cwd, (await runGit(ctx, ['rev-parse', '--git-path', 'info/exclude'])).trim());
  const current = await readFile(file, 'utf8').catch(() => '');
  if (current.split('\n').some((line) => line.trim() === pattern)) return false;
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `${current === '' || current.endsWith('\n') ? '' : '\n'}${pattern}\n`);
  return true;
}
