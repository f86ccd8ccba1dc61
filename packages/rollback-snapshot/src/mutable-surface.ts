import * as nodeFs from 'node:fs/promises';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { LoopError } from '@loop/core';
import { runGit } from '@loop/rollback-git/git';

const SOURCE_EXTENSION =
  /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|py|go|rs|java|kt|kts|rb|php|cs|c|h|cc|cpp|hpp|swift|scala|sh|sql|vue|svelte)$/;
const TEST_PATH = /(^|\/)(test|tests|__tests__|spec)\/|\.(test|spec)\.[^/]+$/;
const NON_SOURCE_DIR = /^(\.aid|\.claude|\.github|\.git|node_modules|dist|coverage)\//;

/**
 * The default "filtered to source" rule (seed 002 setup step 2): a file with a source extension
 * (`.ts`, `.js`, `.py`, `.go`, ...) that is not a test (`*.test.*`, `*.spec.*`, `test/`, `tests/`,
 * `__tests__/`) and not under `.aid/`, `.claude/`, `.github/`, `node_modules/`, `dist/` or
 * `coverage/`. Tests, criteria YAMLs, `.aid/*.json` and config stay read-only.
 */
export function defaultSourceFilter(path: string): boolean {
  return SOURCE_EXTENSION.test(path) && !TEST_PATH.test(path) && !NON_SOURCE_DIR.test(path);
}

/** Options of {@link resolveMutableSurface}. */
export interface ResolveMutableSurfaceOptions {
  /** Absolute path of the repository root ({{WORKSPACE}}). */
  workspace: string;
  /** Keeps a path (relative, `/`-separated) in the surface. @default defaultSourceFilter */
  isSource?: (path: string) => boolean;
  /**
   * Which git reads the status: `cli`, the git binary through `@loop/rollback-git`'s `runGit`
   * (one `git --no-optional-locks status --porcelain -z --untracked-files=all --no-renames`,
   * which never writes the index: about the cost of `git status --porcelain`); `isomorphic-git`,
   * its `statusMatrix` through a file system that drops every write (no binary needed, but it
   * hashes every file: 235x `git status` at 50,000 files, issue 13); `auto`, the CLI when a `git`
   * binary starts, else isomorphic-git. @default 'auto'
   */
  git?: 'auto' | 'cli' | 'isomorphic-git';
}

/** What {@link resolveMutableSurface} found. */
export interface MutableSurface {
  /** The mutable files, relative and sorted. */
  readonly files: readonly string[];
  /** Changed or untracked files that the filter left out (read-only), sorted. */
  readonly excluded: readonly string[];
  /** Tracked files deleted from the working tree (nothing to snapshot), sorted. */
  readonly deleted: readonly string[];
  /**
   * Paths isomorphic-git tried to write while inspecting (the writes were dropped); expected empty or the index stat
   * cache. Empty with the CLI.
   */
  readonly suppressedWrites: readonly string[];
  /** Which git read the status. */
  readonly via: 'cli' | 'isomorphic-git';
}

/**
 * An `fs` for isomorphic-git that reads the real file system and drops every write, so resolving
 * the surface can never change HEAD, refs, the index or the working tree (isomorphic-git's status
 * walk may otherwise refresh the index's stat cache).
 */
function readOnlyGitFs(suppressed: string[]) {
  const drop = async (path: unknown) => {
    suppressed.push(String(path));
  };
  return {
    promises: {
      readFile: nodeFs.readFile,
      stat: nodeFs.stat,
      lstat: nodeFs.lstat,
      readdir: nodeFs.readdir,
      readlink: nodeFs.readlink,
      writeFile: drop,
      mkdir: drop,
      rmdir: drop,
      unlink: drop,
      symlink: drop,
      rm: drop,
    },
  };
}

/**
 * Resolves the mutable surface from the workspace's git status, read-only (seed 002 setup step 2):
 * the union of `git diff --name-only HEAD` (tracked changes, staged or not) and `git ls-files
 * --others --exclude-standard` (untracked, not ignored), filtered to source. Git is only inspected
 * (no commit, reset, checkout, restore or clean, ever): with the git CLI (`options.git`, default
 * where a binary starts) one `status` call that takes no optional lock and never refreshes the
 * index; otherwise isomorphic-git's `statusMatrix` through a file system that drops writes
 * (`.gitignore` and `.git/info/exclude` honoured, the global excludes file not). Measured at
 * 50,000 files (bench/surface-scan.bench.ts): the CLI path is about `git status --porcelain`'s
 * cost, isomorphic-git a few hundred times it. Deleted files are reported apart.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when `workspace` has no readable git repository.
 */
export async function resolveMutableSurface(options: ResolveMutableSurfaceOptions): Promise<MutableSurface> {
  const isSource = options.isSource ?? defaultSourceFilter;
  const which = options.git ?? 'auto';
  const notARepo = (error: unknown) =>
    new LoopError(
      'NOT_A_REPOSITORY',
      `[loop] [rollback-snapshot] cannot read the git status ` +
        `of ${options.workspace}: ${(error as Error).message}; run in a git ` +
        `repository or pass the mutable files explicitly (files: [...])`,
      { cause: error, details: { workspace: options.workspace } },
    );
  let changed: StatusEntry[] | undefined;
  let via: MutableSurface['via'] = 'isomorphic-git';
  const suppressed: string[] = [];
  if (which !== 'isomorphic-git') {
    // The workspace must be the repository's root (the CLI's paths are relative to it), as isomorphic-git requires.
    try {
      await nodeFs.stat(join(options.workspace, '.git'));
    } catch (error) {
      throw notARepo(error);
    }
    try {
      changed = await statusViaCli(options.workspace);
      via = 'cli';
    } catch (error) {
      if (which === 'cli' || !binaryMissing(error)) throw notARepo(error);
    }
  }
  let entries: StatusEntry[];
  try {
    entries = changed ?? (await statusViaIsomorphicGit(options.workspace, suppressed));
  } catch (error) {
    throw notARepo(error);
  }
  const files: string[] = [];
  const excluded: string[] = [];
  const deleted: string[] = [];
  for (const entry of entries) {
    if (entry.deleted) deleted.push(entry.path);
    else (isSource(entry.path) ? files : excluded).push(entry.path);
  }
  return { files: files.sort(), excluded: excluded.sort(), deleted: deleted.sort(), suppressedWrites: suppressed, via };
}

/** One path that differs from HEAD or is untracked: deleted when the working tree lacks it. */
interface StatusEntry {
  readonly path: string;
  readonly deleted: boolean;
}

/** True when the error is the git binary failing to start (not installed, not on PATH). */
function binaryMissing(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'ENOENT';
}

/**
 * `git --no-optional-locks status --porcelain=v1 -z --untracked-files=all --no-renames`: tracked
 * changes against HEAD, staged or not (`git diff --name-only HEAD`), and every untracked, not
 * ignored file (`git ls-files --others --exclude-standard`), in one read-only call. A path whose
 * working-tree side is `D` (or staged `D` with no working-tree change) is deleted.
 */
async function statusViaCli(workspace: string): Promise<StatusEntry[]> {
  const out = await runGit(
    { cwd: workspace },
    [
      '--no-optional-locks',
      'status',
      '--porcelain=v1',
      '-z',
      '--untracked-files=all',
      '--no-renames',
      '--ignore-submodules=all',
    ],
    { code: 'NOT_A_REPOSITORY' },
  );
  const entries: StatusEntry[] = [];
  for (const record of out.split('\0')) {
    if (record.length < 4) continue;
    const x = record[0]!;
    const y = record[1]!;
    const path = record.slice(3);
    if (x === '!') continue;
    entries.push({ path, deleted: y === 'D' || (x === 'D' && y === ' ') });
  }
  return entries;
}

/** The same status through isomorphic-git's `statusMatrix`, writes dropped (see {@link readOnlyGitFs}). */
async function statusViaIsomorphicGit(workspace: string, suppressed: string[]): Promise<StatusEntry[]> {
  const matrix = (await git.statusMatrix({ fs: readOnlyGitFs(suppressed), dir: workspace })) as Array<
    [string, number, number, number]
  >;
  const entries: StatusEntry[] = [];
  for (const [path, head, workdir, stage] of matrix) {
    if (workdir === 2) entries.push({ path, deleted: false });
    else if (workdir === 0 && (head === 1 || stage !== 0)) entries.push({ path, deleted: true });
  }
  return entries;
}
