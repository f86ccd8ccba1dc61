import type { IndexEntry, IndexState } from './index-state.js';
import type { RawIndexEntry } from './index-write.js';
import type { Repo } from './repo.js';
import type { BlobEntry } from './tree-diff.js';

/**
 * Deferred staging (issue 31): `updateIndex` with `defer` patches the entries in memory and leaves
 * `.git/index` as it is, so a discarded candidate's commit and revert, which stage a blob and
 * then stage back the blob the file already holds, write no index at all. What is not written is
 * either a fresher stat (safe to lose: git and our scans re-hash a file whose stats differ) or a
 * staged blob the file does not hold yet, the *lag* kept here: written by the next write of the
 * index (the keep writes it), and put back over the file when something else rewrites it (a
 * `git status` refreshing stats) while the file still holds the blob it was made against.
 */

/** One lagging path: the blob the file holds there, and the entry staged in memory. */
interface LagEntry {
  readonly filed: BlobEntry;
  readonly entry: IndexEntry;
}

const lags = new WeakMap<Repo, Map<string, LagEntry>>();

/** Process-wide counts (tests check the deferral really ran): updates kept in memory, and written by a flush. */
export const deferTotals = { deferred: 0, flushed: 0 };

/** Writes an entry's fixed part (stat data, mode, oid) at `offset`; the flags and path stay. */
export function patchEntry(bytes: Buffer, offset: number, e: RawIndexEntry): void {
  const u32 = [e.ctimeS, e.ctimeNs, e.mtimeS, e.mtimeNs, e.dev, e.ino, e.mode, e.uid, e.gid, e.size];
  for (let i = 0; i < 10; i += 1) bytes.writeUInt32BE((u32[i]! >>> 0) % 2 ** 32, offset + i * 4);
  bytes.write(e.oid, offset + 40, 20, 'hex');
}

const sameBlob = (a: BlobEntry, b: BlobEntry): boolean => a.oid === b.oid && a.mode === b.mode;

/** Records a deferred update of `before` (the entry in memory until now) to `after`. */
export function noteDeferred(repo: Repo, before: IndexEntry, after: IndexEntry): void {
  let lag = lags.get(repo);
  if (lag === undefined) lags.set(repo, (lag = new Map()));
  const filed = lag.get(before.path)?.filed ?? { oid: before.oid, mode: before.mode };
  if (sameBlob(filed, after)) lag.delete(before.path);
  else lag.set(before.path, { filed, entry: after });
}

/** How many paths are staged in memory with a blob `.git/index` does not hold. */
export function lagSize(repo: Repo): number {
  return lags.get(repo)?.size ?? 0;
}

/** Forgets the lag: the file now holds everything in memory (our own write). */
export function clearLag(repo: Repo): void {
  lags.delete(repo);
}

/**
 * `parsed` (the file as something else wrote it) with the lagging entries put back where the file
 * still holds the blob each was made against; a path that now holds another blob, or a file that
 * cannot be patched in place (an extension), drops them: the file is then what git says.
 */
export function reapplyLag(repo: Repo, parsed: IndexState, version: () => number): IndexState {
  const lag = lags.get(repo);
  if (lag === undefined || lag.size === 0) return parsed;
  const offsets = parsed.offsets;
  if (offsets === undefined) {
    lags.delete(repo);
    return parsed;
  }
  let applied = 0;
  for (const [path, { filed, entry }] of lag) {
    const now = parsed.entries.get(path);
    if (now === undefined || !sameBlob(now, filed)) {
      lag.delete(path);
      continue;
    }
    patchEntry(parsed.bytes, offsets.get(path)!, entry);
    parsed.entries.set(path, entry);
    applied += 1;
  }
  return applied === 0 ? parsed : { ...parsed, key: `${parsed.fileKey}+${version()}`, unwritten: applied };
}
