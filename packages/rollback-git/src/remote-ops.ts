import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { runGit, type GitCliContext } from './git-cli.js';

/**
 * Makes an empty bare repository at `dir` (`git init --bare`) unless one is there already: the
 * per-run clone a remote worker fetches candidates' base commits into. Idempotent.
 *
 * @returns true when it was created now.
 * @throws {LoopError} `NOT_A_REPOSITORY` carrying git's stderr when git cannot create it.
 */
export async function initBareRepository(dir: string): Promise<boolean> {
  if (existsSync(dir)) return false;
  await mkdir(dir, { recursive: true });
  await runGit({ cwd: dir }, ['init', '--bare', '-q'], { advice: `check that ${dir} is writable` });
  return true;
}

/** True when `commit` (a full or abbreviated id) names a commit present in the repository at `ctx.cwd`. */
export async function hasCommit(ctx: GitCliContext, commit: string): Promise<boolean> {
  try {
    await runGit(ctx, ['cat-file', '-e', `${commit}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes `commit` present in the repository at `ctx.cwd`, fetching from `remote` (a path, a
 * `file://`, `ssh://` or `https://` URL, or a bundle file) when it is missing: first every branch
 * and every `refs/loop/*` ref (into `refs/remotes/loop-source/*`, so the repository's own refs are
 * never touched), then, if the commit is still missing, the commit id itself (git's protocol v2
 * allows a reachable id). A commit already present costs one `cat-file` and no fetch.
 *
 * @returns true when a fetch was needed.
 * @throws {LoopError} `NOT_A_REPOSITORY` carrying git's stderr when the remote cannot be read or
 *   does not have the commit.
 */
export async function fetchCommit(ctx: GitCliContext, remote: string, commit: string): Promise<boolean> {
  if (await hasCommit(ctx, commit)) return false;
  await runGit(ctx, ['fetch', '-q', '--no-tags', remote, '+refs/heads/*:refs/remotes/loop-source/heads/*', '+refs/loop/*:refs/remotes/loop-source/loop/*'], {
    advice: `check that ${remote} is a git repository this machine can read`,
  });
  if (await hasCommit(ctx, commit)) return true;
  await runGit(ctx, ['fetch', '-q', '--no-tags', remote, commit], { advice: `check that ${remote} has commit ${commit}` });
  if (!(await hasCommit(ctx, commit))) {
    await runGit(ctx, ['cat-file', '-e', `${commit}^{commit}`], { advice: `${remote} does not have commit ${commit}` });
  }
  return true;
}

/**
 * Creates a linked worktree at `path` with a detached HEAD at `commit` (`git worktree add
 * --detach`, run in the repository `ctx.cwd`, bare or not): a fresh working copy of one commit
 * that makes no branch. Remove it with `removeWorktree(ctx, path, { force: true })`. Not
 * idempotent: `path` must not exist.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` carrying git's stderr (unknown commit, `path` exists).
 */
export async function addDetachedWorktree(ctx: GitCliContext, path: string, commit: string): Promise<void> {
  await runGit(ctx, ['worktree', 'add', '-q', '--detach', path, commit], { advice: `check that ${path} does not exist and that ${commit} is in ${ctx.cwd}` });
}

/**
 * Removes the linked worktree at `path` and its metadata in one `git worktree remove --force`
 * (no `prune` of other stale records, unlike `removeWorktree`: one process per removal on a busy
 * worker). A missing `path` is not an error.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` carrying git's stderr.
 */
export async function removeDetachedWorktree(ctx: GitCliContext, path: string): Promise<void> {
  if (!existsSync(path)) return;
  await runGit(ctx, ['worktree', 'remove', '--force', path]);
}
