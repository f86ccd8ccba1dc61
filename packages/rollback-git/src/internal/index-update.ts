import { createHash } from 'node:crypto';
import type { GitFsStats } from '../git-fs.js';
import {
  dropIndexState,
  keepIndexState,
  loadIndexState,
  nextPathsVersion,
  statKey,
  type IndexEntry,
  type IndexState,
} from './index-state.js';
import { clearLag, deferTotals, lagSize, noteDeferred, patchEntry } from './index-lag.js';
import type { RawIndexEntry } from './index-write.js';
import { writeThroughLock } from './lock-file.js';
import type { Repo } from './repo.js';
import type { BlobEntry } from './tree-diff.js';
import { byPath } from './paths.js';

/** One path to stage: its blob and the working-tree stats taken before its content was read. */
export interface StagedFile {
  /** Relative path. */
  readonly path: string;
  /** The blob and git mode now in the working tree. */
  readonly blob: BlobEntry;
  /**
   * `lstat` of the file (taken before reading it, so a later change shows as a stat change); `undefined`: no stat data.
   */
  readonly stats: GitFsStats | undefined;
}

const toSecondsNs = (ms: number): [number, number] => {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.max(0, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6)))];
};

/** An index entry for a staged file, with the stat data git compares. */
export function entryOf(file: StagedFile): RawIndexEntry {
  const s = file.stats as
    (GitFsStats & { dev?: number | bigint; uid?: number | bigint; gid?: number | bigint }) | undefined;
  if (s === undefined) {
    return {
      path: file.path,
      oid: file.blob.oid,
      mode: file.blob.mode,
      ctimeS: 0,
      ctimeNs: 0,
      mtimeS: 0,
      mtimeNs: 0,
      dev: 0,
      ino: 0,
      uid: 0,
      gid: 0,
      size: 0,
    };
  }
  const [ctimeS, ctimeNs] = toSecondsNs(Number(s.ctimeMs));
  const [mtimeS, mtimeNs] = toSecondsNs(Number(s.mtimeMs));
  const low = (v: number | bigint | undefined) => Number(v ?? 0) % 2 ** 32;
  return {
    path: file.path,
    oid: file.blob.oid,
    mode: file.blob.mode,
    ctimeS,
    ctimeNs,
    mtimeS,
    mtimeNs,
    dev: low(s.dev),
    ino: low(s.ino),
    uid: low(s.uid),
    gid: low(s.gid),
    size: low(s.size),
  };
}

/** The entry with its times in milliseconds as well. */
const withMs = (e: RawIndexEntry): IndexEntry => ({
  ...e,
  ctimeMs: e.ctimeS * 1000 + e.ctimeNs / 1e6,
  mtimeMs: e.mtimeS * 1000 + e.mtimeNs / 1e6,
});

/** Sorts entries in git's path order: by UTF-8 bytes (JS string order agrees unless a path holds a surrogate pair). */
function sortGitOrder(entries: IndexEntry[]): IndexEntry[] {
  if (entries.some((e) => /[\ud800-\udfff]/.test(e.path))) {
    return entries
      .map((e) => ({ e, key: Buffer.from(e.path) }))
      .sort((a, b) => Buffer.compare(a.key, b.key))
      .map(({ e }) => e);
  }
  return entries.sort(byPath);
}

/**
 * Serialises stage-0 entries, sorted in git's order, as a version-2 index with no extensions (what
 * `git read-tree` writes) and 20 bytes for the trailer `writeIndexState` seals, into one buffer;
 * also returns where each entry starts.
 */
function serializeEntries(entries: readonly IndexEntry[]): { bytes: Buffer; offsets: Map<string, number> } {
  const lengths = entries.map((e) => Buffer.byteLength(e.path));
  let size = 12 + 20;
  for (const length of lengths) size += Math.ceil((62 + length + 1) / 8) * 8;
  const bytes = Buffer.alloc(size);
  bytes.write('DIRC', 0, 'latin1');
  bytes.writeUInt32BE(2, 4);
  bytes.writeUInt32BE(entries.length, 8);
  const offsets = new Map<string, number>();
  let offset = 12;
  entries.forEach((e, i) => {
    const length = lengths[i]!;
    patchEntry(bytes, offset, e);
    bytes.writeUInt16BE(Math.min(length, 0xfff), offset + 60);
    bytes.write(e.path, offset + 62, length, 'utf8');
    offsets.set(e.path, offset);
    offset += Math.ceil((62 + length + 1) / 8) * 8;
  });
  return { bytes, offsets };
}

/** What {@link updateIndex} may record about the index it writes. */
export interface IndexUpdateOptions {
  /**
   * The index will equal commit `commit`'s tree exactly, provided it is still the index a
   * whole-tree scan saw (`basis`, the scan's `indexBasisOf`): the next scan against that commit
   * then needs no blob map of it. Without it the claim kept so far survives a stat-only refresh.
   */
  readonly matches?: { readonly commit: string; readonly basis: string | undefined };
  /**
   * Patch the entries in memory and leave the file as it is when only existing entries change and
   * the index is at least `repo.deferStagingAt` bytes (see internal/index-lag.ts): the next write
   * of the index, or {@link flushIndex}, writes them. Up to {@link DEFER_LIMIT} entries; beyond
   * that the update is written.
   */
  readonly defer?: boolean;
}

/** How many entries may wait in memory before a deferred update is written after all. */
export const DEFER_LIMIT = 1024;

/**
 * Stages `set` and unstages `remove` in ONE rewrite of `.git/index` (through `index.lock`, not
 * fsynced: the index is git's cache of the working tree, rebuilt from the kept commit if a power
 * loss tears it, see docs/safety.md), instead of one isomorphic-git `add`/`remove` per call, each
 * rewriting it (issue 13). The index is taken from what this package last read or wrote while the
 * file is unchanged, not parsed again; when only existing entries change, their bytes are patched
 * in place and only the SHA-1 trailer is recomputed. A staged path replaces whatever stood in its
 * way: an entry for one of its parent directories (a file that became a directory) and entries
 * under it (a directory that became a file).
 *
 * @returns the entries now in the index for the touched paths (`undefined`: not in the index), so
 *   a caller can verify without parsing the file again; `undefined` when the index is in a form
 *   this module does not rewrite (version 4, conflicts, a split or sparse index: the caller falls
 *   back to isomorphic-git).
 */
export async function updateIndex(
  repo: Repo,
  set: readonly StagedFile[],
  remove: readonly string[],
  options: IndexUpdateOptions = {},
): Promise<Map<string, BlobEntry | undefined> | undefined> {
  const state = await loadIndexState(repo);
  if (state === undefined || !state.rewritable) return undefined;
  const sameBlobs =
    remove.every((path) => !state.entries.has(path)) &&
    set.every((file) => {
      const entry = state.entries.get(file.path);
      return entry !== undefined && entry.oid === file.blob.oid && entry.mode === file.blob.mode;
    });
  const claim = options.matches;
  const matches =
    claim !== undefined
      ? claim.basis === state.key
        ? claim.commit
        : undefined
      : sameBlobs
        ? state.matches
        : undefined;
  const offsets = state.offsets;
  const inPlace =
    offsets !== undefined &&
    remove.every((path) => !state.entries.has(path)) &&
    set.every((file) => state.entries.has(file.path));

  let next: Unkeyed;
  const staged = new Set(set.map((file) => file.path));
  // From here the cached state is stale: a failure below leaves the next call to read the file.
  dropIndexState(repo);
  if (inPlace) {
    // Patched in place, not copied (8 MB at 100,000 files, issue 31): nothing else holds these bytes.
    const bytes = state.bytes;
    const updated = set.map((file) => withMs(entryOf(file)));
    for (const e of updated) patchEntry(bytes, offsets.get(e.path)!, e);
    const unwritten = state.unwritten + updated.length;
    if (options.defer === true && unwritten <= DEFER_LIMIT && bytes.byteLength >= repo.deferStagingAt) {
      for (const e of updated) noteDeferred(repo, state.entries.get(e.path)!, e);
      for (const e of updated) state.entries.set(e.path, e);
      const key = `${state.fileKey}+${nextPathsVersion()}`;
      keepIndexState(repo, { ...state, key, matches, unwritten });
      deferTotals.deferred += 1;
      return touched(state.entries, remove, staged);
    }
    // The map is shared with the state it came from; that state is replaced below.
    for (const e of updated) state.entries.set(e.path, e);
    next = {
      bytes,
      entries: state.entries,
      unmerged: state.unmerged,
      offsets,
      rewritable: true,
      matches,
      pathsVersion: state.pathsVersion,
    };
  } else {
    const nextEntries = new Map(state.entries);
    for (const path of remove) nextEntries.delete(path);
    if (set.length > 0) {
      const parents = new Set<string>();
      for (const path of staged)
        for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) parents.add(path.slice(0, i));
      for (const path of [...nextEntries.keys()]) {
        if (parents.has(path))
          nextEntries.delete(path); // a file where a directory is now staged
        else if (!staged.has(path) && path.includes('/')) {
          for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
            if (staged.has(path.slice(0, i))) {
              nextEntries.delete(path); // under a path now staged as a file
              break;
            }
          }
        }
      }
    }
    for (const file of set) nextEntries.set(file.path, withMs(entryOf(file)));
    const sorted = sortGitOrder([...nextEntries.values()]);
    const { bytes, offsets: written } = serializeEntries(sorted);
    next = {
      bytes,
      entries: new Map(sorted.map((e) => [e.path, e])),
      unmerged: new Set(),
      offsets: written,
      rewritable: true,
      matches,
      pathsVersion: nextPathsVersion(),
    };
  }
  await writeIndexState(repo, next);
  return touched(next.entries, remove, staged);
}

/** The entries now staged for the touched paths (`undefined`: not in the index). */
function touched(
  entries: ReadonlyMap<string, IndexEntry>,
  remove: readonly string[],
  staged: ReadonlySet<string>,
): Map<string, BlobEntry | undefined> {
  const result = new Map<string, BlobEntry | undefined>();
  for (const path of [...remove, ...staged]) {
    const entry = entries.get(path);
    result.set(path, entry === undefined ? undefined : { oid: entry.oid, mode: entry.mode });
  }
  return result;
}

type Unkeyed = Omit<IndexState, 'key' | 'fileKey' | 'fileMtimeMs' | 'unwritten'>;

/**
 * Seals `next.bytes` with the SHA-1 trailer of everything before it (the one place it is computed:
 * in-place patches and deferred updates leave it stale), writes them through `index.lock` and
 * keeps `next` as the index.
 */
async function writeIndexState(repo: Repo, next: Unkeyed): Promise<void> {
  const end = next.bytes.byteLength - 20;
  createHash('sha1').update(next.bytes.subarray(0, end)).digest().copy(next.bytes, end);
  const stats = await writeThroughLock(repo.rawFs.promises, `${repo.gitdir}/index`, next.bytes, {
    wait: repo.lockWait,
    sync: false,
    identify: true,
  });
  clearLag(repo);
  // Our own write, recognised by its stat key: the next scan or update takes it without reading.
  if (stats !== undefined) {
    const key = statKey(stats);
    keepIndexState(repo, { ...next, key, fileKey: key, fileMtimeMs: Number(stats.mtimeMs), unwritten: 0 });
  }
}

/**
 * Writes what deferred updates left in memory (see {@link IndexUpdateOptions.defer}): with
 * `lagOnly`, only when a staged blob is not in the file yet (stat refreshes wait for the next
 * write). When something else wrote the file meanwhile, what still applies was put back over it
 * (`loadIndexState`) and is written.
 */
export async function flushIndex(repo: Repo, lagOnly = false): Promise<void> {
  const state = await loadIndexState(repo);
  if (state === undefined || state.unwritten === 0 || (lagOnly && lagSize(repo) === 0)) return;
  dropIndexState(repo);
  await writeIndexState(repo, state);
  deferTotals.flushed += 1;
}
