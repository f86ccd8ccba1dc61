import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { LoopError } from '@loop/core';
import type { ChangedFile } from './diff-guards.js';

const exec = promisify(execFile);

/** The commit trailer that names the FIX a Stage 5.1 commit applies (restart-safe lookup). */
export const FIX_TRAILER = 'Collie-Fix';
/** The commit trailer of a Stage 6 revert commit. */
export const REVERT_TRAILER = 'Collie-Revert';
/** The trailer carrying the flow executor's one-line note of a FIX commit (read back when a restarted step finds the commit). */
export const NOTE_TRAILER = 'Collie-Note';

/** The value of `trailer` in the message of commit `sha` ('' when absent). */
export async function trailerOf(ctx: GitContext, sha: string, trailer: string): Promise<string> {
  const out = await git(ctx, 'log', '-1', `--format=%(trailers:key=${trailer},valueonly)`, sha);
  return out.trim().split('\n')[0]?.trim() ?? '';
}

/** Options of the git calls: the worktree and the injected time (commit dates come from the clock, so a rerun gives the same shas). */
export interface GitContext {
  readonly cwd: string;
  /** ms since the epoch, used for GIT_AUTHOR_DATE / GIT_COMMITTER_DATE. */
  readonly now: number;
}

/**
 * Runs `git <args>` in `cwd` (execFile, no shell).
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` carrying git's stderr.
 */
export async function git(ctx: GitContext, ...args: string[]): Promise<string> {
  const date = `@${Math.floor(ctx.now / 1000)} +0000`;
  try {
    const r = await exec('git', args, {
      cwd: ctx.cwd,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date, GIT_AUTHOR_NAME: process.env.GIT_AUTHOR_NAME ?? 'collie', GIT_AUTHOR_EMAIL: process.env.GIT_AUTHOR_EMAIL ?? 'collie@localhost', GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME ?? 'collie', GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL ?? 'collie@localhost' },
    });
    return r.stdout;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new LoopError('NOT_A_REPOSITORY', `[loop] [collie] git ${args.join(' ')} failed in ${ctx.cwd}: ${(e.stderr || e.message).trim()}; the project (and the run's worktree) must be a git repository with at least one commit`, { cause: error, details: { cwd: ctx.cwd, args } });
  }
}

/** HEAD's sha. */
export async function headSha(ctx: GitContext): Promise<string> {
  return (await git(ctx, 'rev-parse', 'HEAD')).trim();
}

/** True when the worktree has staged, unstaged or untracked (not ignored) changes. */
export async function isDirty(ctx: GitContext): Promise<boolean> {
  return (await git(ctx, 'status', '--porcelain', '--untracked-files=all')).trim() !== '';
}

/** Stages everything and commits with `message`; returns the new sha, or null when there was nothing to commit. */
export async function commitAll(ctx: GitContext, message: string): Promise<string | null> {
  await git(ctx, 'add', '-A');
  if ((await git(ctx, 'diff', '--cached', '--name-only')).trim() === '') return null;
  await git(ctx, 'commit', '-q', '--no-verify', '-m', message);
  return headSha(ctx);
}

/** The commit (after `base`) whose message carries `<trailer>: <value>`, or null. */
export async function findCommit(ctx: GitContext, base: string, trailer: string, value: string): Promise<string | null> {
  const out = await git(ctx, 'log', '--format=%H', '--fixed-strings', `--grep=${trailer}: ${value}`, `${base}..HEAD`);
  return out.trim().split('\n').filter(Boolean)[0] ?? null;
}

/** The files one commit changes, with their status (renames count as delete + add). */
export async function commitFiles(ctx: GitContext, sha: string): Promise<ChangedFile[]> {
  const out = await git(ctx, 'diff-tree', '--no-commit-id', '--no-renames', '-r', '--name-status', sha);
  const status = { A: 'added', M: 'modified', D: 'deleted' } as const;
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [s = 'M', ...rest] = line.split('\t');
      return { path: rest.join('\t'), status: status[s[0] as 'A' | 'M' | 'D'] ?? 'modified' };
    });
}

/** Discards uncommitted changes to tracked files and removes untracked (not ignored) files. */
export async function discardChanges(ctx: GitContext): Promise<void> {
  await git(ctx, 'reset', '-q', '--hard', 'HEAD');
  await git(ctx, 'clean', '-q', '-fd');
}
