import { foreignCode } from './errors.js';
import { reapplyLag } from './index-lag.js';
import type { RawIndexEntry } from './index-write.js';
import type { Repo } from './repo.js';

/** One stage-0 entry of `.git/index`: the raw stat fields plus the times in milliseconds. */
export interface IndexEntry extends RawIndexEntry {
  /** Modification time in milliseconds (fractional). */
  readonly mtimeMs: number;
  /** Status-change time in milliseconds (fractional). */
  readonly ctimeMs: number;
}

/**
 * `.git/index` as rollback-git last read or wrote it (issue 13: the index is parsed once, not once
 * per scan and once per update). Valid while the file's (inode, size, mtime, ctime) are `key`.
 */
export interface IndexState {
  /**
   * This version of the index: the file's stat key while the file holds it, else that key plus a
   * version number (a deferred update, see `unwritten`). A scan's basis, compared by equality.
   */
  readonly key: string;
  /** The index file's `ino:size:mtimeMs:ctimeMs` when it was read or last written by us. */
  readonly fileKey: string;
  /** The index file's own mtime in milliseconds (for the racy-git check). */
  readonly fileMtimeMs: number;
  /**
   * How many entries were updated in memory and not written yet (`updateIndex` with `defer`,
   * issue 31); 0: the file holds these bytes. The SHA-1 trailer of `bytes` is stale while it is not 0.
   */
  readonly unwritten: number;
  /**
   * The file's bytes up to its last entry, then 20 bytes for the SHA-1 trailer (the file's own
   * trailer when it has no extension; recomputed whenever these bytes are written).
   */
  readonly bytes: Buffer;
  /** Stage-0 entries by path, in the file's order. Shared: callers must not change it. */
  readonly entries: Map<string, IndexEntry>;
  /** Paths with conflict stages (1-3). */
  readonly unmerged: Set<string>;
  /**
   * Byte offset of each stage-0 entry in `bytes` when the file can be patched in place (no
   * conflicts, no skip-worktree or intent-to-add flags, only optional extensions, which `bytes`
   * leaves out); `undefined` otherwise.
   */
  readonly offsets: Map<string, number> | undefined;
  /**
   * True when {@link updateIndex} may rewrite the file (only optional extensions, stage 0 only, no extended flags set).
   */
  readonly rewritable: boolean;
  /**
   * The commit whose tree this index equals exactly (every path, oid and mode), when a whole-tree
   * scan or one of our own writes established it; `undefined`: not known. A scan then needs no
   * commit blob map (issue 13).
   */
  matches: string | undefined;
  /** Changes whenever the set of paths changes (a new parse, an added or removed entry). */
  readonly pathsVersion: number;
}

let versions = 0;
const states = new WeakMap<Repo, IndexState>();

/** The stat key of an index file: a write renames `index.lock` over it, so a new file has a new key. */
export const statKey = (stats: {
  ino: number | bigint;
  size: number | bigint;
  mtimeMs: number | bigint;
  ctimeMs: number | bigint;
}): string => `${Number(stats.ino)}:${Number(stats.size)}:${Number(stats.mtimeMs)}:${Number(stats.ctimeMs)}`;

/** Parses index bytes (versions 2 and 3); `undefined` for another format or torn bytes. */
export function parseIndexBytes(bytes: Buffer, key: string, fileMtimeMs: number): IndexState | undefined {
  if (bytes.byteLength < 32 || bytes.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = bytes.readUInt32BE(4);
  if (version !== 2 && version !== 3) return undefined;
  const count = bytes.readUInt32BE(8);
  const end = bytes.byteLength - 20;
  const entries = new Map<string, IndexEntry>();
  const offsets = new Map<string, number>();
  const unmerged = new Set<string>();
  let rewritable = true;
  let offset = 12;
  for (let i = 0; i < count; i += 1) {
    if (offset + 62 > end) return undefined;
    const flags = bytes.readUInt16BE(offset + 60);
    const stage = (flags & 0x3000) >> 12;
    let pathStart = offset + 62;
    if ((flags & 0x4000) !== 0) {
      if (bytes.readUInt16BE(pathStart) !== 0) rewritable = false; // skip-worktree, intent-to-add
      pathStart += 2;
    }
    const nul = bytes.indexOf(0, pathStart);
    if (nul === -1 || nul > end) return undefined;
    const path = bytes.toString('utf8', pathStart, nul);
    if (stage !== 0) {
      rewritable = false;
      unmerged.add(path);
    } else {
      const u = (k: number) => bytes.readUInt32BE(offset + k * 4);
      const ctimeS = u(0),
        ctimeNs = u(1),
        mtimeS = u(2),
        mtimeNs = u(3);
      entries.set(path, {
        path,
        ctimeS,
        ctimeNs,
        mtimeS,
        mtimeNs,
        dev: u(4),
        ino: u(5),
        mode: u(6),
        uid: u(7),
        gid: u(8),
        size: u(9),
        oid: bytes.toString('hex', offset + 40, offset + 60),
        ctimeMs: ctimeS * 1000 + ctimeNs / 1e6,
        mtimeMs: mtimeS * 1000 + mtimeNs / 1e6,
      });
      offsets.set(path, offset);
    }
    // Entry length (from its start) padded with 1 to 8 NULs to a multiple of 8.
    offset += Math.ceil((nul - offset + 1) / 8) * 8;
  }
  const entriesEnd = offset;
  const extensions = offset < end;
  while (offset + 8 <= end) {
    const first = bytes[offset] ?? 0;
    if (first < 0x41 || first > 0x5a) rewritable = false; // a required extension (link, sdir)
    offset += 8 + bytes.readUInt32BE(offset + 4);
  }
  versions += 1;
  return {
    key,
    fileKey: key,
    fileMtimeMs,
    unwritten: 0,
    // Optional extensions (a cache tree git wrote, an untracked cache) are left out of what we
    // keep and write: patched in place they would describe the old blobs. The 20 bytes after the
    // entries take the trailer, computed when these bytes are written.
    bytes: extensions && rewritable ? bytes.subarray(0, entriesEnd + 20) : bytes,
    entries,
    unmerged,
    offsets: rewritable ? offsets : undefined,
    rewritable,
    matches: undefined,
    pathsVersion: versions,
  };
}

/** An empty index (no file yet). */
function emptyState(): IndexState {
  versions += 1;
  return {
    key: 'missing',
    fileKey: 'missing',
    fileMtimeMs: 0,
    unwritten: 0,
    bytes: Buffer.alloc(0),
    entries: new Map(),
    unmerged: new Set(),
    offsets: undefined,
    rewritable: true,
    matches: undefined,
    pathsVersion: versions,
  };
}

/**
 * The index as it is on disk now: the kept state while the file's stat key is unchanged, else the
 * file read and parsed again (and kept). `undefined` for a format this module does not read
 * (version 4, torn bytes): callers fall back to isomorphic-git.
 */
export async function loadIndexState(repo: Repo): Promise<IndexState | undefined> {
  const path = `${repo.gitdir}/index`;
  let key: string;
  let fileMtimeMs: number;
  let raw: Uint8Array | string;
  try {
    const stats = await repo.fs.promises.lstat(path);
    key = statKey(stats);
    const kept = states.get(repo);
    if (kept?.fileKey === key) return kept;
    fileMtimeMs = Number(stats.mtimeMs);
    raw = await repo.fs.promises.readFile(path);
  } catch (error) {
    if (foreignCode(error) !== 'ENOENT') throw error;
    const kept = states.get(repo);
    if (kept?.fileKey === 'missing') return kept;
    const empty = emptyState();
    states.set(repo, empty);
    return empty;
  }
  reads.set(repo, (reads.get(repo) ?? 0) + 1);
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const parsed = parseIndexBytes(bytes, key, fileMtimeMs);
  // Something else wrote the file (a `git status` refreshing stats): our deferred staging still
  // holds where the file kept the blob it was made against.
  const state = parsed === undefined ? undefined : reapplyLag(repo, parsed, nextPathsVersion);
  if (state === undefined) states.delete(repo);
  else states.set(repo, state);
  return state;
}

const reads = new WeakMap<Repo, number>();

/**
 * How often `.git/index` was read from disk for `repo` (a file whose stat key was not the one
 * kept: the first read, or another program wrote it; our own writes are kept without a read).
 */
export function indexReads(repo: Repo): number {
  return reads.get(repo) ?? 0;
}

/**
 * Records `state` as the index now: what `.git/index` holds after our own write, or a deferred
 * update of it (`state.unwritten` > 0, the file still at `state.fileKey`).
 */
export function keepIndexState(repo: Repo, state: IndexState): void {
  states.set(repo, state);
}

/** The stat key of the state kept now (our own last write or read), without looking at the file. */
export function keptIndexKey(repo: Repo): string | undefined {
  return states.get(repo)?.key;
}

/**
 * Records that the kept index equals commit `commit`'s tree, when it is still the index a
 * whole-tree scan saw (`basis`); nothing otherwise.
 */
export function claimIndexMatches(repo: Repo, basis: string | undefined, commit: string): void {
  const kept = states.get(repo);
  if (kept !== undefined && basis !== undefined && kept.key === basis) kept.matches = commit;
}

/** Forgets the kept state (after a write that failed or that something else made). */
export function dropIndexState(repo: Repo): void {
  states.delete(repo);
}

/** A new version number for a changed set of paths. */
export function nextPathsVersion(): number {
  versions += 1;
  return versions;
}
