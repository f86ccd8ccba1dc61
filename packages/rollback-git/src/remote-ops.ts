import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
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
  await runGit(
    ctx,
    [
      'fetch',
      '-q',
      '--no-tags',
      remote,
      '+refs/heads/*:refs/remotes/loop-source/heads/*',
      '+refs/loop/*:refs/remotes/loop-source/loop/*',
    ],
    {
      advice: `check that ${remote} is a git repository this machine can read`,
    },
  );
  if (await hasCommit(ctx, commit)) return true;
  await runGit(ctx, ['fetch', '-q', '--no-tags', remote, commit], {
    advice: `check that ${remote} has commit ${commit}`,
  });
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
  await runGit(ctx, ['worktree', 'add', '-q', '--detach', path, commit], {
    advice: `check that ${path} does not exist and that ${commit} is in ${ctx.cwd}`,
  });
}

/**
 * Removes the linked worktree at `path` and its record in the repository without starting git:
 * the record is the directory its `.git` file names (`gitdir: <repo>/worktrees/<name>`), which is
 * what `git worktree remove --force` deletes too; one fewer process per job on a busy worker. A
 * `path` whose `.git` file is missing or names no `worktrees/` record is only deleted (a later
 * `git worktree prune` drops a stale record). A missing `path` is not an error.
 *
 * @throws {Error} the file-system error when a directory cannot be deleted.
 */
export async function removeDetachedWorktree(path: string): Promise<void> {
  if (!existsSync(path)) return;
  const pointer = await readFile(join(path, '.git'), 'utf8').catch(() => '');
  const gitdir = /^gitdir: (.+)$/m.exec(pointer)?.[1]?.trim();
  await rm(path, { recursive: true, force: true });
  if (gitdir && basename(dirname(gitdir)) === 'worktrees') await rm(gitdir, { recursive: true, force: true });
}
