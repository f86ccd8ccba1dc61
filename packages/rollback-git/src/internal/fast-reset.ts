import git from 'isomorphic-git';
import { inChunks } from './chunks.js';
import { ensureParents, lstatOrUndefined, readWorktreeBlob, removeEmptyParents, removePath, writeWorktreeBlob } from './fs-ops.js';
import { parentOf } from './paths.js';
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

  // Parents first, one at a time (shallowest first): the parallel writes below then never race to
  // create the same directory (a reverted directory rename hit EEXIST and fell back to checkout).
  const parents = [...new Set(writes.map((entry) => parentOf(entry.path)).filter((dir) => dir !== '.'))];
  parents.sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0));
  for (const dir of parents) await ensureParents(repo, `${dir}/_`);

  await inChunks(writes, async (entry) => {
    const target = entry.target;
    if (target === undefined) return;
    const actual = await readWorktreeBlob(repo, entry.path);
    if (actual !== undefined && actual !== 'other' && actual.oid === target.oid && actual.mode === target.mode) return;
    const { blob } = await git.readBlob({ ...args, oid: target.oid });
    await writeWorktreeBlob(repo, entry.path, target.mode, blob);
  });

  // Removals from the index before the adds: removing `x` also drops `x/...`, so a file replaced
  // by a directory of the same name must lose its old entry before the new ones are added.
  for (const entry of removals) {
    if (entry.inIndex) await git.remove({ ...args, filepath: entry.path });
  }
  if (writes.length > 0) {
    await git.add({ ...args, filepath: writes.map((entry) => entry.path), force: true });
  }
  await git.writeRef({ ...args, ref: branchRef, value: targetOid, force: true });
}
