import { createHash } from 'node:crypto';
import { foreignCode } from './errors.js';
import type { Repo } from './repo.js';
import { collectBlobs, treeOfCommit, type BlobEntry } from './tree-diff.js';

/** One stage-0 entry as `.git/index` (version 2) stores it: stat data in whole seconds + nanoseconds. */
export interface RawIndexEntry {
  /** Relative path, `/`-separated. */
  readonly path: string;
  /** Blob oid (40 hex). */
  readonly oid: string;
  /** Git mode (0o100644, 0o100755, 0o120000, 0o160000). */
  readonly mode: number;
  /** Status-change time: seconds and nanoseconds. */
  readonly ctimeS: number;
  readonly ctimeNs: number;
  /** Modification time: seconds and nanoseconds. */
  readonly mtimeS: number;
  readonly mtimeNs: number;
  /** Device, inode, owner (each modulo 2^32). */
  readonly dev: number;
  readonly ino: number;
  readonly uid: number;
  readonly gid: number;
  /** Size in bytes (modulo 2^32). */
  readonly size: number;
}

/** What state `.git/index` is in. `torn`: empty, truncated, or its SHA-1 trailer does not match. */
export type IndexHealth = 'ok' | 'missing' | 'torn';

/**
 * Checks `.git/index` the way git does on read: the `DIRC` signature, a known version (2-4) and
 * the SHA-1 of everything before the 20-byte trailer. A kill of a writer that truncates then
 * writes (isomorphic-git before this package took `index.lock`) leaves it empty or torn.
 */
export async function indexHealth(repo: Repo): Promise<IndexHealth> {
  let raw: Uint8Array | string;
  try {
    raw = await repo.fs.promises.readFile(`${repo.gitdir}/index`);
  } catch (error) {
    if (foreignCode(error) === 'ENOENT') return 'missing';
    throw error;
  }
  return indexBytesHealth(typeof raw === 'string' ? new TextEncoder().encode(raw) : raw);
}

/**
 * Checks the bytes of an index file as git does on read (see {@link indexHealth}): `ok`, or
 * `torn` when they are empty, truncated, of an unknown version or fail the SHA-1 trailer.
 */
export function indexBytesHealth(bytes: Uint8Array): Exclude<IndexHealth, 'missing'> {
  if (bytes.byteLength < 32) return 'torn';
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.toString('latin1', 0, 4) !== 'DIRC') return 'torn';
  const version = buffer.readUInt32BE(4);
  if (version < 2 || version > 4) return 'torn';
  const body = buffer.subarray(0, buffer.byteLength - 20);
  const trailer = buffer.subarray(buffer.byteLength - 20);
  return createHash('sha1').update(body).digest().equals(trailer) ? 'ok' : 'torn';
}

/**
 * Serialises stage-0 entries as a version-2 `.git/index` (sorted by path bytes, no extensions,
 * SHA-1 trailer): what `git read-tree` writes. Extensions git may regenerate (cache tree,
 * untracked cache) are left out, which git accepts.
 */
export function serializeIndex(entries: readonly RawIndexEntry[]): Uint8Array {
  const sorted = entries.map((e) => ({ e, path: Buffer.from(e.path) })).sort((a, b) => Buffer.compare(a.path, b.path));
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.write('DIRC', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(sorted.length, 8);
  parts.push(header);
  for (const { e, path } of sorted) {
    const length = Math.ceil((62 + path.byteLength + 1) / 8) * 8;
    const entry = Buffer.alloc(length);
    const u32 = [e.ctimeS, e.ctimeNs, e.mtimeS, e.mtimeNs, e.dev, e.ino, e.mode, e.uid, e.gid, e.size];
    u32.forEach((value, i) => entry.writeUInt32BE((value >>> 0) % 2 ** 32, i * 4));
    entry.write(e.oid, 40, 'hex');
    entry.writeUInt16BE(Math.min(path.byteLength, 0xfff), 60);
    path.copy(entry, 62);
    parts.push(entry);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

/** An index entry for `blob` at `path` with no stat data (git re-stats it on the next status). */
export function unstatEntry(path: string, blob: BlobEntry): RawIndexEntry {
  return {
    path,
    oid: blob.oid,
    mode: blob.mode,
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

/**
 * Rebuilds `.git/index` from commit `commitOid` (`git read-tree <commit>`): one entry per blob,
 * without stat data, so the next scan hashes each file once and refreshes it. Written through the
 * index lock.
 *
 * @returns the number of entries written.
 */
export async function writeIndexFromCommit(repo: Repo, commitOid: string): Promise<number> {
  const blobs = new Map<string, BlobEntry>();
  await collectBlobs(repo, await treeOfCommit(repo, commitOid), '', blobs);
  const entries = [...blobs].map(([path, blob]) => unstatEntry(path, blob));
  await repo.fs.promises.writeFile(`${repo.gitdir}/index`, serializeIndex(entries));
  repo.cache = {}; // isomorphic-git's parsed index is stale now
  return entries.length;
}
