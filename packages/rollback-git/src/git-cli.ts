import { execFile } from 'node:child_process';
import { LoopError, type LoopErrorCode } from '@loop/core';
import type { GitAuthor } from './git-reset-rollback-options.js';

/**
 * Where and as whom a git CLI call runs.
 *
 * Why the CLI and not isomorphic-git for these operations (measured with isomorphic-git 1.44.19,
 * git 2.39): isomorphic-git alone cannot open a linked worktree (`git worktree add`; the rollback
 * does, through the path-mapping fs of `internal/git-dirs.ts`): it follows the
 * `.git` file to `<repo>/.git/worktrees/<name>` but ignores its `commondir`, so `resolveRef('HEAD')`
 * throws `NotFoundError: Could not find refs/heads/<branch>` and no object can be read. It also has
 * no `worktree add/remove`, no `revert`, no revision ranges (`A..B`) and no `index.lock` (FACTS.md:
 * never let the CLI and isomorphic-git write one repository at the same time). The operations in
 * `commit-ops.ts` and `git-worktree.ts` are what a pipeline working in such a worktree needs (seed
 * 000's collie), so they all go through {@link runGit}, the one place this package spawns git.
 */
export interface GitCliContext {
  /** Absolute directory the command runs in (a working tree, a linked worktree or the repository). */
  readonly cwd: string;
  /**
   * ms since the epoch for `GIT_AUTHOR_DATE` / `GIT_COMMITTER_DATE` (injected clock: the same
   * inputs give the same commit ids, so a restarted step finds the commit it made).
   * @default the real time (git's own default)
   */
  readonly now?: number;
  /**
   * Author and committer when the environment sets none (`GIT_AUTHOR_NAME` etc. win).
   * @default { name: 'loop', email: 'loop@localhost' }
   */
  readonly author?: GitAuthor;
}

/** Options of one {@link runGit} call. */
export interface RunGitOptions {
  /**
   * The code of the `LoopError` thrown when git exits non-zero.
   * @default 'NOT_A_REPOSITORY'
   */
  readonly code?: LoopErrorCode;
  /** What to tell the user to do when it fails (appended to the message). */
  readonly advice?: string;
  /** Extra environment variables for this call (e.g. `GIT_INDEX_FILE`). @default none */
  readonly env?: Readonly<Record<string, string>>;
}

const MAX_BUFFER = 64 * 1024 * 1024;
const DEFAULT_AUTHOR: GitAuthor = { name: 'loop', email: 'loop@localhost' };

function gitEnv(ctx: GitCliContext): NodeJS.ProcessEnv {
  const author = ctx.author ?? DEFAULT_AUTHOR;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_AUTHOR_NAME: process.env.GIT_AUTHOR_NAME ?? author.name,
    GIT_AUTHOR_EMAIL: process.env.GIT_AUTHOR_EMAIL ?? author.email,
    GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME ?? author.name,
    GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL ?? author.email,
    // Never wait for an editor or a pager.
    GIT_EDITOR: 'true',
    GIT_PAGER: 'cat',
  };
  if (ctx.now !== undefined) {
    const date = `@${Math.floor(ctx.now / 1000)} +0000`;
    env.GIT_AUTHOR_DATE = date;
    env.GIT_COMMITTER_DATE = date;
  }
  return env;
}

/**
 * Runs `git <args>` in `ctx.cwd` (execFile, no shell; the `git` first on `PATH`) and returns its
 * stdout untrimmed. With {@link runGitBuffer}, the only functions of this package that spawn git
 * (see {@link GitCliContext} for why these operations use the CLI).
 *
 * @throws {LoopError} `options.code` (default `NOT_A_REPOSITORY`) carrying git's stderr, the
 *   arguments and the directory (`details.cwd`, `details.args`), when git exits non-zero or cannot
 *   be started.
 */
export async function runGit(
  ctx: GitCliContext,
  args: readonly string[],
  options: RunGitOptions = {},
): Promise<string> {
  return (await spawnGit(ctx, args, options)).toString('utf8');
}

/**
 * {@link runGit} for bytes: stdout as a Buffer (blobs, `-z` output), `input` written to git's
 * stdin (`cat-file --batch`). @throws {LoopError} as {@link runGit}.
 */
export function runGitBuffer(
  ctx: GitCliContext,
  args: readonly string[],
  options: RunGitOptions & { readonly input?: string } = {},
): Promise<Buffer> {
  return spawnGit(ctx, args, options);
}

function spawnGit(
  ctx: GitCliContext,
  args: readonly string[],
  options: RunGitOptions & { readonly input?: string },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const env = options.env ? { ...gitEnv(ctx), ...options.env } : gitEnv(ctx);
    const child = execFile(
      'git',
      [...args],
      { cwd: ctx.cwd, maxBuffer: MAX_BUFFER, env, encoding: 'buffer' },
      (error, stdout, stderr) => {
        if (!error) {
          resolve(stdout);
          return;
        }
        const err = stderr.toString('utf8').trim();
        const why = (err || stdout.toString('utf8') || error.message).trim();
        const advice = options.advice ?? 'check that the directory is a git working tree with at least one commit';
        reject(
          new LoopError(
            options.code ?? 'NOT_A_REPOSITORY',
            `[loop] [rollback-git] git ${args.join(' ')} failed in ${ctx.cwd}: ${why}; ${advice}`,
            {
              cause: error,
              details: { cwd: ctx.cwd, args: [...args], stderr: err },
            },
          ),
        );
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/**
 * The text of `file` at each of `revs`, read with one `git cat-file --batch` (`<rev>:./<file>`);
 * `undefined` where a rev or the file at it is missing.
 *
 * @throws {LoopError} as {@link runGit} when git cannot run there.
 */
export async function readFileAtRevs(
  ctx: GitCliContext,
  file: string,
  revs: readonly string[],
): Promise<(string | undefined)[]> {
  if (revs.length === 0) return [];
  const buf = await runGitBuffer(ctx, ['cat-file', '--batch'], { input: revs.map((r) => `${r}:./${file}\n`).join('') });
  const blobs: (string | undefined)[] = [];
  let at = 0;
  for (let i = 0; i < revs.length && at < buf.length; i++) {
    const eol = buf.indexOf(0x0a, at);
    if (eol < 0) break;
    const header = buf.subarray(at, eol).toString('utf8').split(' ');
    at = eol + 1;
    if (header[1] !== 'blob') {
      blobs.push(undefined); // "<rev> missing" or "<rev> ambiguous"
      continue;
    }
    const size = Number(header[2]);
    blobs.push(buf.subarray(at, at + size).toString('utf8'));
    at += size + 1;
  }
  while (blobs.length < revs.length) blobs.push(undefined);
  return blobs;
}

/** Splits git's line output into non-empty lines. */
export function gitLines(out: string): string[] {
  return out.split('\n').filter((line) => line !== '');
}
