import nodeFs from 'node:fs';
import { inflateSync } from 'node:zlib';
import { foreignCode } from './errors.js';
import { onNodeFs } from './fs-ops.js';
import { hashObject, type ObjectType } from './object-format.js';
import { encodePack, parseIndex, readEntryHeader, type EncodedPack, type PackInput } from './pack-format.js';
import { perRepo, type Repo } from './repo.js';

// The packs under `objects/pack` that rollback-git reads itself: every version-2 index is listed
// (oid -> pack, offset, end), and an entry stored whole is read by slicing the pack (kept in a
// bounded cache: packs are immutable) and inflating. Deltas, packs over PACK_READ_LIMIT and
// anything that does not parse stay isomorphic-git's. A commit's new objects go into one pack
// (see `withObjectBatch`): two file creations instead of one per object.

/** Packs larger than this (bytes) are left to isomorphic-git: 32 MiB. */
export const PACK_READ_LIMIT = 32 * 1024 * 1024;
/** Bytes of pack files kept in memory for reads: 64 MiB. */
const PACK_CACHE_BYTES = 64 * 1024 * 1024;
/** A batch of at least this many objects is written as a pack; fewer as loose objects (as many file creations). */
export const PACK_MIN_OBJECTS = 3;

/** A pack rollback-git can read: its entries with their byte ranges. */
export interface PackInfo {
  /** `pack-<sha>`, without extension. */
  readonly name: string;
  /** Entries in pack order: oid, start and end offsets of the entry's bytes. */
  readonly entries: readonly { readonly oid: string; readonly start: number; readonly end: number; readonly crc: number }[];
  /** Size of the `.pack` file, bytes. */
  readonly size: number;
}

interface PackState {
  readonly packs: Map<string, PackInfo>;
  readonly where: Map<string, { readonly pack: PackInfo; readonly start: number; readonly end: number }>;
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
export const packState = perRepo((): PackState => ({ packs: new Map(), where: new Map(), bytes: new Map(), cached: 0, ignored: new Set(), listed: undefined, batch: undefined }));

/** `<gitdir>/objects/pack`. */
export const packDir = (repo: Repo): string => `${repo.gitdir}/objects/pack`;

/** Adds a pack (its sorted-by-offset entries) to the registry. */
export function registerPack(repo: Repo, name: string, size: number, entries: readonly { oid: string; offset: number; crc: number }[]): PackInfo {
  const state = packState(repo);
  const byOffset = [...entries].sort((a, b) => a.offset - b.offset);
  const info: PackInfo = {
    name,
    size,
    entries: byOffset.map((entry, i) => ({ oid: entry.oid, start: entry.offset, end: byOffset[i + 1]?.offset ?? size - 20, crc: entry.crc })),
  };
  state.packs.set(name, info);
  for (const entry of info.entries) state.where.set(entry.oid, { pack: info, start: entry.start, end: entry.end });
  return info;
}

/** Removes a pack from the registry (deleted, or found missing) and drops its cached bytes. */
export function forgetPack(repo: Repo, name: string): void {
  const state = packState(repo);
  const info = state.packs.get(name);
  if (info === undefined) return;
  state.packs.delete(name);
  for (const entry of info.entries) if (state.where.get(entry.oid)?.pack === info) state.where.delete(entry.oid);
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
  const present = new Set(names.filter((name) => /^pack-[0-9a-f]{40}\.idx$/.test(name)).map((name) => name.slice(0, -4)));
  for (const name of [...state.packs.keys()]) if (!present.has(name)) forgetPack(repo, name);
  for (const name of [...state.ignored]) if (!present.has(name)) state.ignored.delete(name);
  for (const name of present) {
    if (state.packs.has(name) || state.ignored.has(name)) continue;
    try {
      const stats = await repo.fs.promises.lstat(`${packDir(repo)}/${name}.pack`);
      const size = Number(stats.size);
      const parsed = size > PACK_READ_LIMIT ? undefined : parseIndex(await readFileBytes(repo, `${packDir(repo)}/${name}.idx`));
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
export async function readPacked(repo: Repo, oid: string): Promise<{ type: string; bytes: Uint8Array } | 'corrupt' | undefined> {
  const state = packState(repo);
  const pending = state.batch?.get(oid);
  if (pending !== undefined) return { type: pending.type, bytes: pending.bytes };
  let at = state.where.get(oid);
  if (at === undefined) {
    await refreshPacks(repo);
    at = state.where.get(oid);
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
  if (header.type !== 'blob' && header.type !== 'tree' && header.type !== 'commit' && header.type !== 'tag') return undefined;
  let bytes: Buffer;
  try {
    bytes = inflateSync(pack.subarray(at.start + header.length, at.end));
  } catch {
    return 'corrupt';
  }
  if (bytes.length !== header.size || hashObject(header.type, bytes) !== oid) return 'corrupt';
  return { type: header.type, bytes };
}

/** Writes a pack and its index (temp file and rename each, pack first: the index makes it visible) and registers it. */
export async function writePack(repo: Repo, encoded: EncodedPack): Promise<void> {
  const base = `${packDir(repo)}/pack-${encoded.name}`;
  await repo.fs.promises.mkdir(packDir(repo), { recursive: true }).catch((error: unknown) => {
    if (foreignCode(error) !== 'EEXIST') throw error;
  });
  await repo.fs.promises.writeFile(`${base}.pack`, encoded.pack);
  await repo.fs.promises.writeFile(`${base}.idx`, encoded.idx);
  registerPack(repo, `pack-${encoded.name}`, encoded.pack.length, encoded.entries);
}

/**
 * Runs `fn` with every object rollback-git writes (`writeObject`) collected in memory instead of
 * written one file each, then writes them: as one pack when there are at least PACK_MIN_OBJECTS,
 * else loose (`writeLoose`). Objects of the batch are readable while it is open. When `fn`
 * throws, nothing is written (nothing can name the objects yet: the caller moves refs and the
 * index only after the batch).
 */
export async function withObjectBatch<T>(
  repo: Repo,
  fn: () => Promise<T>,
  writeLoose: (input: PackInput) => Promise<void>,
  afterPack: (repo: Repo) => Promise<void>,
): Promise<T> {
  const state = packState(repo);
  if (state.batch !== undefined) return fn();
  const batch = new Map<string, PackInput>();
  state.batch = batch;
  let result: T;
  try {
    result = await fn();
  } finally {
    state.batch = undefined;
  }
  const inputs = [...batch.values()];
  if (inputs.length >= PACK_MIN_OBJECTS) {
    await writePack(repo, encodePack(inputs));
    await afterPack(repo);
  } else {
    for (const input of inputs) await writeLoose(input);
  }
  return result;
}

/** Adds an object to the open batch; false when no batch is open. */
export function addToBatch(repo: Repo, oid: string, type: ObjectType, bytes: Uint8Array): boolean {
  const state = packState(repo);
  if (state.batch === undefined) return false;
  if (!state.batch.has(oid) && !state.where.has(oid)) state.batch.set(oid, { oid, type, bytes });
  return true;
}
