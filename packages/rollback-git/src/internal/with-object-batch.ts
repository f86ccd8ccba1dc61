import type { ObjectType } from './object-format.js';
import { encodePack, type EncodedPack, type PackInput } from './pack-format.js';
import { foreignCode } from './errors.js';
import { locate, packDir, packState, registerPack } from './pack-store.js';
import type { Repo } from './repo.js';

// The write side of the pack store: a commit's new objects are collected in a batch and written as one pack.

/** A batch of at least this many objects is written as a pack; fewer as loose objects (as many file creations). */
export const PACK_MIN_OBJECTS = 3;

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
  if (!state.batch.has(oid) && locate(repo, oid) === undefined) state.batch.set(oid, { oid, type, bytes });
  return true;
}
