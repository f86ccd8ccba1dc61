import { foreignCode } from './errors.js';
import type { Repo } from './repo.js';

/** One stage-0 entry of `.git/index`. */
export interface IndexEntry {
  /** Relative path. */
  readonly path: string;
  /** Blob oid. */
  readonly oid: string;
  /** Git mode (0o100644, 0o100755, 0o120000, 0o160000). */
  readonly mode: number;
  /** Modification time in milliseconds (fractional). */
  readonly mtimeMs: number;
  /** Status-change time in milliseconds (fractional). */
  readonly ctimeMs: number;
  /** Size in bytes (modulo 2^32). */
  readonly size: number;
  /** Inode (modulo 2^32). */
  readonly ino: number;
}

/** The parsed index: stage-0 entries by path, and the paths with merge conflicts. */
export interface IndexSnapshot {
  /** Stage-0 entries by path. */
  readonly entries: Map<string, IndexEntry>;
  /** Paths with conflict stages (1-3): always reported as changed. */
  readonly unmerged: Set<string>;
  /** The index file's own mtime in milliseconds (for the racy-git check). */
  readonly fileMtimeMs: number;
}

/**
 * Reads `.git/index` (versions 2 and 3, the ones isomorphic-git reads and writes). Returns
 * `undefined` when there is no index (a fresh repository) or it is in a format this reader does
 * not know (version 4): the caller then falls back to an isomorphic-git walk. An index file whose
 * inode, size, mtime and ctime are those of the last one parsed is not read again (the snapshot
 * is shared: callers must not change it).
 */
export async function readIndexFile(repo: Repo): Promise<IndexSnapshot | undefined> {
  const path = `${repo.gitdir}/index`;
  let raw: Uint8Array | string;
  let fileMtimeMs: number;
  let key: string;
  try {
    const stats = await repo.fs.promises.lstat(path);
    fileMtimeMs = Number(stats.mtimeMs);
    // Every write of the index renames index.lock over it (a new inode), so an unchanged
    // (inode, size, mtime, ctime) is the very file parsed last time.
    key = `${Number(stats.ino)}:${Number(stats.size)}:${fileMtimeMs}:${Number(stats.ctimeMs)}`;
    if (parsed.get(repo)?.key === key) return parsed.get(repo)!.snapshot;
    raw = await repo.fs.promises.readFile(path);
  } catch (error) {
    if (foreignCode(error) === 'ENOENT') return { entries: new Map(), unmerged: new Set(), fileMtimeMs: 0 };
    throw error;
  }
  const snapshot = parseIndex(raw, fileMtimeMs);
  if (snapshot !== undefined) parsed.set(repo, { key, snapshot });
  return snapshot;
}

/** The last index parsed per repository, by the index file's (inode, size, mtime, ctime). */
const parsed = new WeakMap<Repo, { key: string; snapshot: IndexSnapshot }>();

/** Parses index bytes (versions 2 and 3); `undefined` for another format. */
function parseIndex(raw: Uint8Array | string, fileMtimeMs: number): IndexSnapshot | undefined {
  if (typeof raw === 'string') return undefined;
  const bytes = raw;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || String.fromCharCode(bytes[0] ?? 0, bytes[1] ?? 0, bytes[2] ?? 0, bytes[3] ?? 0) !== 'DIRC') return undefined;
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) return undefined;
  const count = view.getUint32(8);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = new Map<string, IndexEntry>();
  const unmerged = new Set<string>();
  let offset = 12;
  for (let i = 0; i < count; i += 1) {
    if (offset + 62 > bytes.byteLength) return undefined;
    const ctimeMs = view.getUint32(offset) * 1000 + view.getUint32(offset + 4) / 1e6;
    const mtimeMs = view.getUint32(offset + 8) * 1000 + view.getUint32(offset + 12) / 1e6;
    const ino = view.getUint32(offset + 20);
    const mode = view.getUint32(offset + 24);
    const size = view.getUint32(offset + 36);
    const oid = buffer.toString('hex', offset + 40, offset + 60);
    const flags = view.getUint16(offset + 60);
    const extended = (flags & 0x4000) !== 0;
    const stage = (flags & 0x3000) >> 12;
    const pathStart = offset + 62 + (extended ? 2 : 0);
    const end = bytes.indexOf(0, pathStart);
    if (end === -1) return undefined;
    const path = buffer.toString('utf8', pathStart, end);
    // Entry length (from its start) padded with 1 to 8 NULs to a multiple of 8.
    offset += Math.ceil((end - offset + 1) / 8) * 8;
    if (stage !== 0) {
      unmerged.add(path);
      continue;
    }
    entries.set(path, { path, oid, mode, mtimeMs, ctimeMs, size, ino });
  }
  return { entries, unmerged, fileMtimeMs };
}
