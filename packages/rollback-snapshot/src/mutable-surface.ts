import * as nodeFs from 'node:fs/promises';
import git from 'isomorphic-git';
import { LoopError } from '@loop/core';

const SOURCE_EXTENSION = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|py|go|rs|java|kt|kts|rb|php|cs|c|h|cc|cpp|hpp|swift|scala|sh|sql|vue|svelte)$/;
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
}

/** What {@link resolveMutableSurface} found. */
export interface MutableSurface {
  /** The mutable files, relative and sorted. */
  readonly files: readonly string[];
  /** Changed or untracked files that the filter left out (read-only), sorted. */
  readonly excluded: readonly string[];
  /** Tracked files deleted from the working tree (nothing to snapshot), sorted. */
  readonly deleted: readonly string[];
  /** Paths isomorphic-git tried to write while inspecting (the writes were dropped); expected empty or the index stat cache. */
  readonly suppressedWrites: readonly string[];
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
 * --others --exclude-standard` (untracked, not ignored), filtered to source. It uses
 * isomorphic-git's `statusMatrix` through a file system that drops writes: git is only inspected
 * (no commit, reset, checkout, restore or clean, ever). `.gitignore` and `.git/info/exclude` are
 * honoured; the global excludes file is not (isomorphic-git). Deleted files are reported apart.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when `workspace` has no readable git repository.
 */
export async function resolveMutableSurface(options: ResolveMutableSurfaceOptions): Promise<MutableSurface> {
  const isSource = options.isSource ?? defaultSourceFilter;
  const suppressed: string[] = [];
  let matrix: Array<[string, number, number, number]>;
  try {
    matrix = (await git.statusMatrix({ fs: readOnlyGitFs(suppressed), dir: options.workspace })) as Array<[string, number, number, number]>;
  } catch (error) {
    throw new LoopError('NOT_A_REPOSITORY', `[loop] [rollback-snapshot] cannot read the git status of ${options.workspace}: ${(error as Error).message}; run in a git repository or pass the mutable files explicitly (files: [...])`, { cause: error, details: { workspace: options.workspace } });
  }
  const files: string[] = [];
  const excluded: string[] = [];
  const deleted: string[] = [];
  for (const [path, head, workdir, stage] of matrix) {
    if (workdir === 2) (isSource(path) ? files : excluded).push(path);
    else if (workdir === 0 && (head === 1 || stage !== 0)) deleted.push(path);
  }
  return { files: files.sort(), excluded: excluded.sort(), deleted: deleted.sort(), suppressedWrites: suppressed };
}
