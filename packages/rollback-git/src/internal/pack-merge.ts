import { foreignCode } from './errors.js';
import { assemblePack, isWholeType, readEntryHeader } from './pack-format.js';
import { entriesOf, forgetPack, packBytes, packDir, packState, type PackInfo } from './pack-store.js';
import { writePack } from './with-object-batch.js';
import { perRepo, type Repo } from './repo.js';

// One pack per candidate commit would leave a run of 100,000 iterations with 100,000 packs, and
// every reader (git, isomorphic-git, us) pays per pack. Packs of whole entries are merged by size
// class, as `git repack --geometric` keeps the count logarithmic: a class is the object count's
// power of 16; once MERGE_FANIN packs share a class they become one pack of a larger class. Each
// object is copied once per class it climbs (about log16 of the run's objects), never re-deflated:
// a whole entry's bytes and CRC are copied as they are.

/** Packs found to hold deltas (git's own): never merged, never looked at again. */
const unmergeable = perRepo(() => new Set<string>());

/** Packs of one size class merged together: 16. */
export const MERGE_FANIN = 16;

/** A pack's size class: floor(log16(objects)). */
export const sizeClass = (objects: number): number => Math.floor(Math.log2(Math.max(1, objects)) / 4);

function wholeOnly(pack: Buffer, info: PackInfo): boolean {
  for (const entry of entriesOf(info)) if (!isWholeType(readEntryHeader(pack, entry.start).type)) return false;
  return true;
}

/**
 * Merges the packs of the smallest size class holding at least MERGE_FANIN packs into one (write
 * the merged pack and index, then delete each old index before its pack: a crash in between
 * leaves objects in two packs, which git allows). Packs holding deltas are never merged.
 *
 * @returns the merged pack's name, or `undefined` when no class is full.
 * @throws the file-system error of a write (the old packs are then left as they were).
 */
export async function mergePacks(repo: Repo): Promise<string | undefined> {
  const state = packState(repo);
  const classes = new Map<number, PackInfo[]>();
  const skip = unmergeable(repo);
  for (const info of state.packs.values()) {
    if (skip.has(info.name)) continue;
    const cls = sizeClass(info.count);
    const members = classes.get(cls) ?? [];
    members.push(info);
    classes.set(cls, members);
  }
  const full = [...classes].filter(([, packs]) => packs.length >= MERGE_FANIN).sort(([a], [b]) => a - b)[0];
  if (full === undefined) return undefined;
  const raw: { oid: string; bytes: Buffer; crc: number }[] = [];
  const merged: PackInfo[] = [];
  const seen = new Set<string>();
  for (const info of full[1]) {
    let pack: Buffer;
    try {
      pack = await packBytes(repo, info.name);
    } catch (error) {
      if (foreignCode(error) !== 'ENOENT') throw error;
      forgetPack(repo, info.name);
      continue;
    }
    if (!wholeOnly(pack, info)) {
      skip.add(info.name);
      continue;
    }
    merged.push(info);
    for (const entry of entriesOf(info)) {
      if (seen.has(entry.oid)) continue;
      seen.add(entry.oid);
      raw.push({ oid: entry.oid, bytes: Buffer.from(pack.subarray(entry.start, entry.end)), crc: entry.crc });
    }
  }
  if (merged.length < 2) return undefined;
  const encoded = assemblePack(raw);
  await writePack(repo, encoded);
  for (const info of merged) {
    if (info.name === `pack-${encoded.name}`) continue;
    forgetPack(repo, info.name);
    for (const ext of ['idx', 'pack']) {
      await repo.fs.promises.unlink(`${packDir(repo)}/${info.name}.${ext}`).catch((error: unknown) => {
        if (foreignCode(error) !== 'ENOENT') throw error;
      });
    }
  }
  return `pack-${encoded.name}`;
}
