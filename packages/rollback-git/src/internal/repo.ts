import nodeFs from 'node:fs';
import type { FsClient, TreeEntry } from 'isomorphic-git';
import type { GitFs } from '../git-fs.js';
import { gitPathMapper, resolveGitDirs, worktreeGitFs, type GitDirs } from './git-dirs.js';
import { DEFAULT_LOCK_WAIT, type LockWait } from './lock-file.js';
import { lockedGitFs } from './locked-fs.js';

/** The repository one rollback works on, and the isomorphic-git cache shared by its calls. */
export interface Repo {
  /** Our own file operations go through `fs.promises`: the caller's fs wrapped by `lockedGitFs`. */
  readonly fs: GitFs;
  /**
   * The caller's fs without the lock-file wrapper (for lock-file clean-up and repairs); in a linked
   * worktree, mapped so that HEAD and the index are the worktree's own (see `worktreeGitFs`).
   */
  readonly rawFs: GitFs;
  /** True when the caller's fs is `node:fs`: synchronous fast paths may use it directly. */
  readonly native: boolean;
  /** The same object, typed for isomorphic-git. */
  readonly gitFs: FsClient;
  /** Absolute working-tree root. */
  readonly dir: string;
  /**
   * The repository directory isomorphic-git and this package are given: `<dir>/.git`, the
   * directory a `.git` file names (a submodule), or a linked worktree's common directory.
   */
  readonly gitdir: string;
  /** Where the repository lives (`gitdir` is `dirs.common`). */
  readonly dirs: GitDirs;
  /** Where a path under `gitdir` really is (a linked worktree's HEAD and index are its own); identity otherwise. */
  readonly realPath: (path: string) => string;
  /** One cache object shared by every isomorphic-git call (parsed index, packs); reset on fallback. */
  cache: object;
  /** Parsed tree objects by oid (immutable, so never stale). */
  readonly trees: Map<string, Map<string, TreeEntry>>;
  /** How a write waits for a lock another process holds (the same wait `fs` uses). */
  readonly lockWait: LockWait;
  /** The index size in bytes from which staging is deferred (option `deferStagingAt`, internal/index-lag.ts). */
  readonly deferStagingAt: number;
}

/** The default of option `deferStagingAt`: 1 MiB, an index of about 12,000 files. */
export const DEFAULT_DEFER_STAGING_AT = 1_048_576;

/**
 * Builds a {@link Repo} for an absolute working tree. Every write under `.git` made through it
 * (by isomorphic-git or by us) follows git's lock-file convention (see `lockedGitFs`).
 */
export function openRepo(
  fs: GitFs,
  dir: string,
  wait: LockWait = DEFAULT_LOCK_WAIT,
  deferStagingAt = DEFAULT_DEFER_STAGING_AT,
): Repo {
  const root = dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir;
  const dirs = resolveGitDirs(fs, root);
  const gitdir = dirs.common;
  const base = worktreeGitFs(fs, dirs);
  const locked = lockedGitFs(base, gitdir, wait);
  return {
    fs: locked,
    rawFs: base,
    native: fs === (nodeFs as unknown),
    gitFs: locked as unknown as FsClient,
    dir: root,
    gitdir,
    dirs,
    realPath: gitPathMapper(dirs),
    cache: {},
    trees: new Map(),
    lockWait: wait,
    deferStagingAt,
  };
}

/** The arguments every isomorphic-git call takes. */
export function gitArgs(repo: Repo): { fs: FsClient; dir: string; gitdir: string; cache: object } {
  return { fs: repo.gitFs, dir: repo.dir, gitdir: repo.gitdir, cache: repo.cache };
}

/**
 * Per-repository state made on first use: the returned function gives the same object for the
 * same {@link Repo} every time (`make`'s arguments count only on that first call), and the state
 * goes with the repo object.
 */
export function perRepo<T, A extends unknown[]>(make: (...args: A) => T): (repo: Repo, ...args: A) => T {
  const states = new WeakMap<Repo, T>();
  return (repo, ...args) => {
    let state = states.get(repo);
    if (state === undefined) {
      state = make(...args);
      states.set(repo, state);
    }
    return state;
  };
}
