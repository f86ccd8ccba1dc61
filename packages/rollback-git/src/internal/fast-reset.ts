import git from 'isomorphic-git';
import { readBlobBytes } from './object-store.js';
import { inChunks } from './chunks.js';
import {
  ensureParents,
  lstatOrUndefined,
  readWorktreeBlob,
  removeEmptyParents,
  removePath,
  writeWorktreeBlob,
} from './fs-ops.js';
import { parentOf } from './paths.js';
import { claimIndexMatches } from './index-state.js';
import { updateIndex, type StagedFile } from './index-update.js';
import type { BlobEntry } from './tree-diff.js';
import { gitArgs, type Repo } from './repo.js';
import type { ResetPlanEntry } from './reset-plan.js';

/**
 * Applies a reset plan: removes the files the target does not have (and the directories left
 * empty), writes the blobs that differ (content and mode; a path the plan does not know to differ
 * is read first and left alone when it already holds the target), updates the index for exactly those
 * paths (one rewrite of the index, with the stat data of the files as written; deferred when only
 * existing entries change, see internal/index-lag.ts), and moves the
 * branch ref last, so an interrupted reset is redone from the same plan. `basis`: the index the
 * plan's whole-tree scan read; while the index is still that one, it equals the target's tree
 * afterwards (every difference was in the plan), which the next scan uses.
 *
 * @returns the index entries of the planned paths as written (for verification without parsing
 *   the index again), or `undefined` when isomorphic-git staged them (an index we do not rewrite).
 */
export async function applyFastReset(
  repo: Repo,
  plan: readonly ResetPlanEntry[],
  branchRef: string,
  targetOid: string,
  basis?: string,
): Promise<Map<string, BlobEntry | undefined> | undefined> {
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
    if (entry.worktreeDiffers !== true) {
      const actual = await readWorktreeBlob(repo, entry.path);
      if (actual !== undefined && actual !== 'other' && actual.oid === target.oid && actual.mode === target.mode)
        return;
    }
    await writeWorktreeBlob(repo, entry.path, target.mode, await readBlobBytes(repo, target.oid));
  });

  const staged: StagedFile[] = [];
  await inChunks(writes, async (entry) => {
    if (entry.target !== undefined)
      staged.push({ path: entry.path, blob: entry.target, stats: await lstatOrUndefined(repo, entry.path) });
  });
  const removed = removals.filter((entry) => entry.inIndex).map((entry) => entry.path);
  const matches = { commit: targetOid, basis };
  let written: Map<string, BlobEntry | undefined> | undefined;
  if (staged.length + removed.length === 0) {
    written = new Map();
    claimIndexMatches(repo, basis, targetOid);
  } else written = await updateIndex(repo, staged, removed, { matches, defer: true });
  if (written === undefined) {
    // Removals from the index before the adds: removing `x` also drops `x/...`, so a file replaced
    // by a directory of the same name must lose its old entry before the new ones are added.
    for (const path of removed) await git.remove({ ...args, filepath: path });
    if (writes.length > 0) await git.add({ ...args, filepath: writes.map((entry) => entry.path), force: true });
  }
  await git.writeRef({ ...args, ref: branchRef, value: targetOid, force: true });
  if (written === undefined) return undefined;
  for (const entry of removals) if (!written.has(entry.path)) written.set(entry.path, undefined);
  return written;
}
