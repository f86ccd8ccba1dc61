import git from 'isomorphic-git';
import { inChunks } from './chunks.js';
import { lstatOrUndefined, readWorktreeBlob, removeEmptyParents, removePath, writeWorktreeBlob } from './fs-ops.js';
import { gitArgs, type Repo } from './repo.js';
import type { ResetPlanEntry } from './reset-plan.js';

/**
 * Applies a reset plan: removes the files the target does not have (and the directories left
 * empty), writes the blobs that differ (content and mode), updates the index for exactly those
 * paths (one `add` call for every written path), and moves the branch ref last, so an interrupted
 * reset is redone from the same plan.
 */
export async function applyFastReset(
  repo: Repo,
  plan: readonly ResetPlanEntry[],
  branchRef: string,
  targetOid: string,
): Promise<void> {
  const args = gitArgs(repo);
  const removals = plan.filter((entry) => entry.target === undefined);
  const writes = plan.filter((entry) => entry.target !== undefined);

  for (const entry of removals) {
    const stats = await lstatOrUndefined(repo, entry.path);
    if (stats !== undefined && !stats.isDirectory()) await removePath(repo, entry.path);
  }
  for (const entry of removals) await removeEmptyParents(repo, entry.path);

  await inChunks(writes, async (entry) => {
    const target = entry.target;
    if (target === undefined) return;
    const actual = await readWorktreeBlob(repo, entry.path);
    if (actual !== undefined && actual !== 'other' && actual.oid === target.oid && actual.mode === target.mode) return;
    const { blob } = await git.readBlob({ ...args, oid: target.oid });
    await writeWorktreeBlob(repo, entry.path, target.mode, blob);
  });

  if (writes.length > 0) {
    await git.add({ ...args, filepath: writes.map((entry) => entry.path), force: true });
  }
  for (const entry of removals) {
    if (entry.inIndex) await git.remove({ ...args, filepath: entry.path });
  }
  await git.writeRef({ ...args, ref: branchRef, value: targetOid, force: true });
}
