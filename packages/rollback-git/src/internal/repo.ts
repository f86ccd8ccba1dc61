import type { FsClient, TreeEntry } from 'isomorphic-git';
import type { GitFs } from '../git-fs.js';

/** The repository one rollback works on, and the isomorphic-git cache shared by its calls. */
export interface Repo {
  /** Our own file operations go through `fs.promises`. */
  readonly fs: GitFs;
  /** The same object, typed for isomorphic-git. */
  readonly gitFs: FsClient;
  /** Absolute working-tree root. */
  readonly dir: string;
  /** `<dir>/.git`. */
  readonly gitdir: string;
  /** One cache object shared by every isomorphic-git call (parsed index, packs); reset on fallback. */
  cache: object;
  /** Parsed tree objects by oid (immutable, so never stale). */
  readonly trees: Map<string, Map<string, TreeEntry>>;
}

/** Builds a {@link Repo} for an absolute working tree. */
export function openRepo(fs: GitFs, dir: string): Repo {
  const root = dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir;
  return { fs, gitFs: fs as unknown as FsClient, dir: root, gitdir: `${root}/.git`, cache: {}, trees: new Map() };
}

/** The arguments every isomorphic-git call takes. */
export function gitArgs(repo: Repo): { fs: FsClient; dir: string; gitdir: string; cache: object } {
  return { fs: repo.gitFs, dir: repo.dir, gitdir: repo.gitdir, cache: repo.cache };
}
