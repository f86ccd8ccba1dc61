import type { Repo } from './repo.js';
import { collectBlobs, treeOfCommit, type BlobEntry } from './tree-diff.js';

/** How many commits' blob maps one repository keeps (an iteration uses the checkpoint and its candidate). */
const KEPT = 4;

const cache = new WeakMap<Repo, Map<string, ReadonlyMap<string, BlobEntry>>>();

/**
 * Every blob of commit `commitOid` by path. A commit never changes, so the map is kept for the
 * last {@link KEPT} commits asked for: the scans of one iteration read the checkpoint's trees once
 * instead of once per scan. The map is shared: callers must not change it.
 */
export async function headBlobs(repo: Repo, commitOid: string): Promise<ReadonlyMap<string, BlobEntry>> {
  let byCommit = cache.get(repo);
  if (byCommit === undefined) cache.set(repo, (byCommit = new Map()));
  const hit = byCommit.get(commitOid);
  if (hit !== undefined) {
    byCommit.delete(commitOid);
    byCommit.set(commitOid, hit); // most recently used last
    return hit;
  }
  const blobs = new Map<string, BlobEntry>();
  await collectBlobs(repo, await treeOfCommit(repo, commitOid), '', blobs);
  byCommit.set(commitOid, blobs);
  while (byCommit.size > KEPT) byCommit.delete(byCommit.keys().next().value as string);
  return blobs;
}
