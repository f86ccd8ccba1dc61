import git from 'isomorphic-git';
import { describe, listFiles, rollbackError } from './errors.js';
import { applyFastReset } from './fast-reset.js';
import { flushIndex } from './index-update.js';
import { lstatOrUndefined, removeEmptyParents, removePath } from './fs-ops.js';
import { resolveRefFast } from './ref-read.js';
import { gitArgs, type Repo } from './repo.js';
import { planReset, type ResetPlanEntry } from './reset-plan.js';
import { verifyReset } from './verify-reset.js';
import type { WorktreeChange } from './worktree-scan.js';
import type { BlobEntry } from './tree-diff.js';

/** What one verified reset did. */
export interface ResetReport {
  /** The commit the branch, index and working tree now hold. */
  readonly targetId: string;
  /** The paths it brought to the target (written, removed or re-indexed). */
  readonly paths: readonly string[];
  /** True when the fast path did not verify and the full reset ran. */
  readonly fallback: boolean;
}

/**
 * The slow reset FACTS.md describes (`writeRef` force, then `checkout` force), plus what checkout
 * leaves behind: untracked files the plan removes and directories left empty. Staging kept in
 * memory is written first: isomorphic-git's checkout reads the index file, and one that still held
 * the target's blob for a file the working tree changed would let it skip that file.
 */
async function fullReset(
  repo: Repo,
  plan: readonly ResetPlanEntry[],
  branchRef: string,
  targetOid: string,
): Promise<void> {
  await flushIndex(repo);
  repo.cache = {};
  const args = gitArgs(repo);
  await git.writeRef({ ...args, ref: branchRef, value: targetOid, force: true });
  await git.writeRef({ ...args, ref: 'HEAD', value: branchRef, symbolic: true, force: true });
  await git.checkout({ ...args, ref: branchRef, force: true });
  for (const entry of plan) {
    if (entry.target !== undefined) continue;
    const stats = await lstatOrUndefined(repo, entry.path);
    if (stats !== undefined && !stats.isDirectory()) await removePath(repo, entry.path);
    await removeEmptyParents(repo, entry.path);
  }
}

async function verifyOrList(
  repo: Repo,
  plan: readonly ResetPlanEntry[],
  branchRef: string,
  targetOid: string,
  staged?: ReadonlyMap<string, BlobEntry | undefined>,
): Promise<string[]> {
  try {
    return await verifyReset(repo, plan, branchRef, targetOid, staged);
  } catch (error) {
    return [`(verification failed: ${describe(error)})`];
  }
}

/**
 * Resets the branch `branchRef` (which HEAD points at), the index and the working tree to
 * `targetOid`, touching only the paths that differ (see `planReset`), then verifies every touched
 * path by hash, and leaves the index file holding the target's blobs (stat refreshes may wait in
 * memory). When the fast path throws or does not verify, runs the full reset once and verifies
 * again. `scan`: the working-tree scan against the branch tip when the caller already made it.
 *
 * @throws {LoopError} `RESTORE_FAILED` naming the paths that are still wrong.
 */
export async function resetBranch(
  repo: Repo,
  branchRef: string,
  targetOid: string,
  bases: readonly string[] | undefined,
  scan?: { readonly fromOid: string; readonly changes: readonly WorktreeChange[] },
): Promise<ResetReport> {
  const fromOid = await resolveRefFast(repo, branchRef);
  const { entries: plan, basis } = await planReset(
    repo,
    fromOid,
    targetOid,
    bases,
    scan?.fromOid === fromOid ? scan.changes : undefined,
  );
  const paths = plan.map((entry) => entry.path);

  let wrong: string[];
  let fastError: unknown;
  try {
    const staged = await applyFastReset(repo, plan, branchRef, targetOid, basis);
    wrong = await verifyOrList(repo, plan, branchRef, targetOid, staged);
    // Staged blobs the index file does not hold (a reset to another commit than the file's, as
    // restoreBest or recover make) are written; a revert stages back what the file holds.
    if (wrong.length === 0) await flushIndex(repo, true);
  } catch (error) {
    fastError = error;
    wrong = [`(fast reset failed: ${describe(error)})`];
  }
  if (wrong.length === 0) return { targetId: targetOid, paths, fallback: false };

  try {
    await fullReset(repo, plan, branchRef, targetOid);
  } catch (error) {
    throw rollbackError(
      'RESTORE_FAILED',
      `could not reset ${branchRef} to ${targetOid.slice(0, 7)}: the fast ` +
        `reset left ${listFiles(wrong)} wrong and the full reset failed ` +
        `(${describe(error)}); inspect with git status, then reset by hand with ` +
        `git reset --hard ${targetOid.slice(0, 7)}`,
      { cause: error, details: { targetId: targetOid, paths: wrong, fastError } },
    );
  }
  const still = await verifyOrList(repo, plan, branchRef, targetOid);
  if (still.length > 0) {
    throw rollbackError(
      'RESTORE_FAILED',
      `reset of ${branchRef} to ${targetOid.slice(0, 7)} did not verify ` +
        `for ${listFiles(still)} (after the full reset too); inspect with git ` +
        `status, then reset by hand with git reset ` +
        `--hard ${targetOid.slice(0, 7)}`,
      { details: { targetId: targetOid, paths: still, fastError } },
    );
  }
  return { targetId: targetOid, paths, fallback: true };
}
