import { loadIndexState, type IndexState } from './index-state.js';
import type { Repo } from './repo.js';

export type { IndexEntry } from './index-state.js';

/** The parsed index a scan reads (see {@link IndexState}). */
export type IndexSnapshot = IndexState;

/**
 * Reads `.git/index` (versions 2 and 3, the ones isomorphic-git reads and writes). Returns an
 * empty snapshot when there is no index (a fresh repository) and `undefined` when it is in a
 * format this reader does not know (version 4): the caller then falls back to an isomorphic-git
 * walk. An index file whose inode, size, mtime and ctime are those of the last one read or
 * written by this package is not read again (see `loadIndexState`; the snapshot is shared:
 * callers must not change it).
 */
export async function readIndexFile(repo: Repo): Promise<IndexState | undefined> {
  return loadIndexState(repo);
}
