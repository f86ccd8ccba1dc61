import nodeFs from 'node:fs';
import { isAbsolute } from 'node:path';
import { systemClock, type Clock } from '@loop/core';
import { z } from 'zod';
import type { GitFs } from './git-fs.js';
import { normalizeRelativePath } from './internal/paths.js';
import { DEFAULT_DEFER_STAGING_AT } from './internal/repo.js';

/** The commit author (also used as committer). */
export interface GitAuthor {
  /** Author name. */
  readonly name: string;
  /** Author e-mail. */
  readonly email: string;
}

/** Options of {@link createGitResetRollback}. */
export interface GitResetRollbackOptions {
  /**
   * Absolute path of the working-tree root (the directory that holds `.git`: a directory, or the
   * file `gitdir: <path>` of a linked worktree or a submodule, whose repository is used).
   */
  readonly dir: string;
  /**
   * The file system: `node:fs` or a memfs instance (`memfs().fs`). isomorphic-git uses the same one.
   * @default node:fs
   */
  readonly fs?: GitFs;
  /** The run branch, a short name such as `auto-iterate/nov30` (created as `refs/heads/<branch>`). */
  readonly branch: string;
  /**
   * Continue an earlier run: check out the existing run branch instead of failing with
   * `BRANCH_EXISTS` (the branch is created when missing).
   * @default false
   */
  readonly resume?: boolean;
  /**
   * Start even when the working tree has uncommitted changes: changes to tracked files become
   * part of the first candidate commit; untracked files (not ignored) are added to
   * `.git/info/exclude` as exact paths at start, so they are never committed into a candidate
   * and survive every revert (remove those lines after the run to see them in `git status` again).
   * @default false
   */
  readonly allowDirty?: boolean;
  /**
   * Author and committer of the candidate commits.
   * @default { name: 'loop', email: 'loop@localhost' }
   */
  readonly author?: GitAuthor;
  /**
   * Relative paths (files or directories) the loop may change: the fast path. When given, change
   * detection, commits and resets only look at these paths plus the paths that differ between
   * commits; changes elsewhere are neither committed nor reverted. When absent the whole working
   * tree is scanned (isomorphic-git `statusMatrix`-like walk), which costs time in proportion to
   * the number of files.
   * @default undefined (whole working tree)
   */
  readonly paths?: readonly string[];
  /**
   * Patterns appended once to `.git/info/exclude` at start, so run outputs are neither committed
   * nor reverted (the user's `.gitignore` is left alone).
   * @default ['results.tsv', 'run.log', '.loop/']
   */
  readonly excludes?: readonly string[];
  /**
   * The clock for commit timestamps (milliseconds since the epoch, rounded down to seconds).
   * @default systemClock (Date.now)
   */
  readonly clock?: Clock;
  /**
   * Prefix of every candidate commit message: `${messagePrefix}${description}`.
   * @default 'auto-iterate: '
   */
  readonly messagePrefix?: string;
  /**
   * Reuse a whole-tree scan for the next step instead of walking the tree again (issue 13): the
   * changes `changedPaths()` found are what the next `commit` commits (each file read from disk
   * at the commit), and after a `revert` the next `changedPaths()` reports the clean tree the
   * revert left (what the revert's own scan and reset established). Only for a caller that
   * writes nothing to the working tree between `changedPaths()` and `commit`, and calls
   * `changedPaths()` right after `checkpoint` following a revert, as the engine's
   * inspect-propose-inspect-commit step does (auto-iterate without `parallel`). A change made in
   * those gaps by something else is not lost: the next scan (the revert's, or the after-edit
   * inspection) sees it, and a revert saves it in its rescue commit.
   * @default false
   */
  readonly reuseScans?: boolean;
  /**
   * Learn what changed from the OS instead of stat-ing every file (issue 31; Linux, `node:fs`, a
   * local file system): the first whole-tree scan puts an inotify watch (`fs.watch`) on every
   * directory it enters, and later scans `lstat` only the paths the kernel reported touched since
   * the previous scan, plus what that scan found changed and what a reset wrote. Whenever a
   * change could have been missed (a possible queue overflow, a watcher error, a late marker
   * event, the watch limit, a `.gitignore` or `.git/info/exclude` change, an index written by
   * another program, a new process after a restart) the next scan walks the whole tree again.
   * Where inotify cannot work (another OS, memfs, NFS/FUSE) every scan walks. See
   * docs/rollback.md, "How changes are found". `stopWatching()` closes the watches.
   * @default false
   */
  readonly watch?: boolean;
  /** Limits of the watch (tests inject small ones). See `JournalLimits`. */
  readonly watchLimits?: { readonly overflowAt?: number; readonly syncTimeoutMs?: number };
  /**
   * The size of `.git/index` in bytes from which a candidate's staging waits for its keep (issue
   * 31). Git's index is one file rewritten and SHA-1 hashed whole on every update (8 MB at
   * 100,000 files); from this size a candidate that only changes files the index has is staged in
   * memory at its commit and written at its keep, and a revert, which stages back the blobs the
   * file still holds, writes nothing. Meanwhile the index on disk holds the checkpoint's blobs for
   * the candidate's files: during its run `git status` lists them as staged (the reverse change)
   * and as not staged (the change), `git diff HEAD` shows nothing, and a kill leaves it so for
   * `recover` to reset with the working tree. `0`: always; `Infinity`: never (the index always
   * equals the commit, as after `git commit`). See docs/rollback.md, "The index".
   * @default 1_048_576 (an index of about 12,000 files)
   */
  readonly deferStagingAt?: number;
}

const FORBIDDEN_IN_REF = /[\x00-\x20\x7f~^:?*[\\]/;

/** Why `name` is not a valid branch name (a subset of `git check-ref-format --branch`), or undefined. */
export function branchNameProblem(name: string): string | undefined {
  if (name === '') return 'must not be empty';
  if (name.startsWith('refs/')) return 'give the short name (auto-iterate/nov30), not refs/heads/...';
  if (name.startsWith('-')) return 'must not start with "-"';
  if (FORBIDDEN_IN_REF.test(name)) return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (name.includes('..') || name.includes('@{') || name === '@') return 'must not contain ".." or "@{" or be "@"';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//'))
    return 'must not start or end with "/" or contain "//"';
  if (name.endsWith('.')) return 'must not end with "."';
  if (name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) {
    return 'no path component may start with "." or end with ".lock"';
  }
  return undefined;
}

const relativePath = z
  .string()
  .min(1)
  .refine((path) => !path.startsWith('/') && !/^[A-Za-z]:/.test(path), 'must be relative to dir')
  .refine((path) => !path.replaceAll('\\', '/').split('/').includes('..'), 'must not contain ".."')
  .refine((path) => normalizeRelativePath(path).split('/')[0] !== '.git', 'must not point into .git')
  .transform(normalizeRelativePath);

const isFs = (value: unknown): value is GitFs => {
  if (typeof value !== 'object' || value === null) return false;
  const promises = (value as { promises?: unknown }).promises;
  if (typeof promises !== 'object' || promises === null) return false;
  const api = promises as Record<string, unknown>;
  return [
    'readFile',
    'writeFile',
    'unlink',
    'readdir',
    'mkdir',
    'rmdir',
    'lstat',
    'readlink',
    'symlink',
    'chmod',
    'rename',
  ].every((method) => typeof api[method] === 'function');
};

/**
 * The zod schema of {@link GitResetRollbackOptions}: validates, applies the defaults and
 * normalises `paths` (`./src/` becomes `src`). Unknown keys are rejected so a typo is caught.
 */
export const gitResetRollbackOptionsSchema = z.strictObject({
  dir: z.string().min(1).refine(isAbsolute, 'must be an absolute path'),
  fs: z
    .custom<GitFs>(isFs, 'must be node:fs or a memfs instance (an object with a promises API)')
    .default(() => nodeFs),
  branch: z.string().superRefine((name, ctx) => {
    const problem = branchNameProblem(name);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `invalid branch name: ${problem}` });
  }),
  resume: z.boolean().default(false),
  allowDirty: z.boolean().default(false),
  author: z
    .strictObject({ name: z.string().min(1), email: z.string().min(1) })
    .default({ name: 'loop', email: 'loop@localhost' }),
  paths: z.array(relativePath).min(1).readonly().optional(),
  excludes: z
    .array(
      z
        .string()
        .min(1)
        .refine((pattern) => !/[\r\n]/.test(pattern), 'must be one line'),
    )
    .readonly()
    .default(['results.tsv', 'run.log', '.loop/']),
  clock: z
    .custom<Clock>(
      (value) => typeof value === 'object' && value !== null && typeof (value as { now?: unknown }).now === 'function',
      'must be an object with now(): number (milliseconds)',
    )
    .default(() => systemClock),
  messagePrefix: z.string().default('auto-iterate: '),
  reuseScans: z.boolean().default(false),
  watch: z.boolean().default(false),
  watchLimits: z
    .strictObject({
      overflowAt: z.number().int().positive().optional(),
      syncTimeoutMs: z.number().int().positive().optional(),
    })
    .optional(),
  deferStagingAt: z
    .custom<number>(
      (value) => value === Infinity || (Number.isSafeInteger(value) && (value as number) >= 0),
      'must be a whole number of bytes (0 or more) or Infinity',
    )
    .default(DEFAULT_DEFER_STAGING_AT),
});

/** {@link GitResetRollbackOptions} after validation, with every default applied. */
export type ResolvedGitResetRollbackOptions = z.output<typeof gitResetRollbackOptionsSchema>;
