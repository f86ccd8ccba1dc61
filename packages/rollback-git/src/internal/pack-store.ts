import nodeFs from 'node:fs';
import { inflateSync } from 'node:zlib';
import { foreignCode } from './errors.js';
import { onNodeFs } from './fs-ops.js';
import { hashObject } from './object-format.js';
import { isWholeType, parseIndex, readEntryHeader, type PackEntry, type PackInput } from './pack-format.js';
import { perRepo, type Repo } from './repo.js';

// The packs under `objects/pack` that rollback-git reads itself: every version-2 index is listed
// (sorted SHA-1s and offsets per pack, searched as git searches its `.idx`), and an entry stored whole is read by
// slicing the pack (kept in a
// bounded cache: packs are immutable) and inflating. Deltas, packs over PACK_READ_LIMIT and
// anything that does not parse stay isomorphic-git's. A commit's new objects go into one pack
// (see `withObjectBatch`, in with-object-batch.ts): two file creations instead of one per object.

/** Packs larger than this (bytes) are left to isomorphic-git: 32 MiB. */
export const PACK_READ_LIMIT = 32 * 1024 * 1024;
/** Bytes of pack files kept in memory for reads: 64 MiB. */
const PACK_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * A pack rollback-git can read, indexed compactly (as git's own `.idx`: 20 bytes of SHA-1 and two
 * offsets per object, no object per entry), so a run's memory does not grow by a map entry for
 * every object it ever wrote.
 */
export interface PackInfo {
  /** `pack-<sha>`, without extension. */
  readonly name: string;
  /** Size of the `.pack` file, bytes. */
  readonly size: number;
  /** Number of objects. */
  readonly count: number;
  /** The objects' SHA-1s, sorted, 20 bytes each. */
  readonly shas: Buffer;
  /** Start and end offsets of each object's entry bytes, aligned with `shas`. */
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  /** CRC-32 of each entry, aligned with `shas`. */
  readonly crcs: Uint32Array;
}

interface PackState {
  readonly packs: Map<string, PackInfo>;
  readonly bytes: Map<string, Buffer>;
  cached: number;
  /** Packs not read here (over PACK_READ_LIMIT, or an index that does not parse). */
  readonly ignored: Set<string>;
  /** The pack directory's stat data when it was last listed. */
  listed: string | undefined;
  /** Objects of the batch being collected (see `withObjectBatch`), or undefined. */
  batch: Map<string, PackInput> | undefined;
}

/** The per-repo registry of readable packs and the open batch. */
export const packState = perRepo((): PackState => ({
  packs: new Map(),
  bytes: new Map(),
  cached: 0,
  ignored: new Set(),
  listed: undefined,
  batch: undefined,
}));

/** `<gitdir>/objects/pack`. */
export const packDir = (repo: Repo): string => `${repo.gitdir}/objects/pack`;

/** Adds a pack (its entries, in any order) to the registry. */
export function registerPack(repo: Repo, name: string, size: number, entries: readonly PackEntry[]): PackInfo {
  const byOid = [...entries].sort((a, b) => (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0));
  const byOffset = [...entries].map((entry) => entry.offset).sort((a, b) => a - b);
  const endOf = new Map(byOffset.map((offset, i) => [offset, byOffset[i + 1] ?? size - 20]));
  const count = byOid.length;
  const info: PackInfo = {
    name,
    size,
    count,
    shas: Buffer.alloc(count * 20),
    starts: new Float64Array(count),
    ends: new Float64Array(count),
    crcs: new Uint32Array(count),
  };
  byOid.forEach((entry, i) => {
    info.shas.write(entry.oid, i * 20, 'hex');
    info.starts[i] = entry.offset;
    info.ends[i] = endOf.get(entry.offset) as number;
    info.crcs[i] = entry.crc;
  });
  packState(repo).packs.set(name, info);
  return info;
}

/** Position of `sha` (20 bytes) in `info.shas`, or -1 (binary search). */
function positionIn(info: PackInfo, sha: Buffer): number {
  let lo = 0;
  let hi = info.count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    // `buf.compare(target, ...)`: > 0 when the entry at `mid` sorts after `sha`.
    const order = info.shas.compare(sha, 0, 20, mid * 20, mid * 20 + 20);
    if (order === 0) return mid;
    if (order > 0) hi = mid - 1;
    else lo = mid + 1;
  }
  return -1;
}

/** Where `oid` is in a registered pack, or `undefined`. */
export function locate(repo: Repo, oid: string): { pack: PackInfo; start: number; end: number } | undefined {
  const sha = Buffer.from(oid, 'hex');
  for (const pack of packState(repo).packs.values()) {
    const i = positionIn(pack, sha);
    if (i >= 0) return { pack, start: pack.starts[i] as number, end: pack.ends[i] as number };
  }
  return undefined;
}

/** A pack's entries (oid, byte range, CRC-32), in oid order. */
export function* entriesOf(info: PackInfo): Generator<{ oid: string; start: number; end: number; crc: number }> {
  for (let i = 0; i < info.count; i += 1) {
    yield {
      oid: info.shas.toString('hex', i * 20, i * 20 + 20),
      start: info.starts[i] as number,
      end: info.ends[i] as number,
      crc: info.crcs[i] as number,
    };
  }
}

/** Removes a pack from the registry (deleted, or found missing) and drops its cached bytes. */
export function forgetPack(repo: Repo, name: string): void {
  const state = packState(repo);
  state.packs.delete(name);
  const bytes = state.bytes.get(name);
  if (bytes !== undefined) {
    state.cached -= bytes.length;
    state.bytes.delete(name);
  }
}

async function readFileBytes(repo: Repo, path: string): Promise<Buffer> {
  const data = onNodeFs(repo) ? nodeFs.readFileSync(path) : await repo.fs.promises.readFile(path);
  return typeof data === 'string' ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Lists `objects/pack` again when its stat data changed since the last listing: indexes not seen
 * yet are loaded, vanished packs forgotten. (A miss here only means isomorphic-git reads the
 * object, so a listing that is stale for an instant costs time, never correctness.)
 */
export async function refreshPacks(repo: Repo): Promise<void> {
  const state = packState(repo);
  let names: string[];
  try {
    const dir = await repo.fs.promises.lstat(packDir(repo));
    const stamp = `${dir.ino}:${dir.mtimeMs}:${dir.ctimeMs}`;
    if (stamp === state.listed) return;
    state.listed = stamp;
    names = (await repo.fs.promises.readdir(packDir(repo))).map(String);
  } catch (error) {
    const code = foreignCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') names = [];
    else throw error;
  }
  const present = new Set(
    names.filter((name) => /^pack-[0-9a-f]{40}\.idx$/.test(name)).map((name) => name.slice(0, -4)),
  );
  for (const name of [...state.packs.keys()]) if (!present.has(name)) forgetPack(repo, name);
  for (const name of [...state.ignored]) if (!present.has(name)) state.ignored.delete(name);
  for (const name of present) {
    if (state.packs.has(name) || state.ignored.has(name)) continue;
    try {
      const stats = await repo.fs.promises.lstat(`${packDir(repo)}/${name}.pack`);
      const size = Number(stats.size);
      const parsed =
        size > PACK_READ_LIMIT ? undefined : parseIndex(await readFileBytes(repo, `${packDir(repo)}/${name}.idx`));
      if (parsed === undefined) state.ignored.add(name);
      else registerPack(repo, name, size, parsed.entries);
    } catch (error) {
      const code = foreignCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
  }
}

/** A pack's bytes, from the cache or disk (then cached, oldest dropped past PACK_CACHE_BYTES). */
export async function packBytes(repo: Repo, name: string): Promise<Buffer> {
  const state = packState(repo);
  const hit = state.bytes.get(name);
  if (hit !== undefined) return hit;
  const bytes = await readFileBytes(repo, `${packDir(repo)}/${name}.pack`);
  state.bytes.set(name, bytes);
  state.cached += bytes.length;
  for (const [old, data] of state.bytes) {
    if (state.cached <= PACK_CACHE_BYTES || old === name) break;
    state.bytes.delete(old);
    state.cached -= data.length;
  }
  return bytes;
}

/**
 * An object from a pack rollback-git can read, or `undefined`: not in any such pack (after one
 * re-listing of `objects/pack`), stored as a delta, or its pack vanished (another process
 * repacked): the caller then asks isomorphic-git. A whole entry whose content does not hash to
 * `oid` is `'corrupt'`.
 */
export async function readPacked(
  repo: Repo,
  oid: string,
): Promise<{ type: string; bytes: Uint8Array } | 'corrupt' | undefined> {
  const state = packState(repo);
  const pending = state.batch?.get(oid);
  if (pending !== undefined) return { type: pending.type, bytes: pending.bytes };
  let at = locate(repo, oid);
  if (at === undefined) {
    await refreshPacks(repo);
    at = locate(repo, oid);
    if (at === undefined) return undefined;
  }
  let pack: Buffer;
  try {
    pack = await packBytes(repo, at.pack.name);
  } catch (error) {
    const code = foreignCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    forgetPack(repo, at.pack.name);
    return undefined;
  }
  const header = readEntryHeader(pack, at.start);
  if (!isWholeType(header.type)) return undefined;
  let bytes: Buffer;
  try {
    bytes = inflateSync(pack.subarray(at.start + header.length, at.end));
  } catch {
    return 'corrupt';
  }
  if (bytes.length !== header.size || hashObject(header.type, bytes) !== oid) return 'corrupt';
  return { type: header.type, bytes };
}
