import { buildTree, type FileUpdate } from './build-tree.js';
import { inChunks } from './chunks.js';
import type { Signature } from './commit-candidate.js';
import { storeWorktreeBlob } from './fs-ops.js';
import { batchObjects, writeCommitObject } from './object-store.js';
import type { Repo } from './repo.js';
import { treeOfCommit } from './tree-diff.js';
import type { WorktreeChange } from './worktree-scan.js';
import { byPath } from './paths.js';

/** The first line of every rescue commit's message. */
export const RESCUE_SUBJECT = 'loop: working-tree files a reset removed or changed back (in no candidate commit)';

/** What {@link rescueWorktree} committed. */
export interface Rescue {
  /** The rescue commit (40 hex): the candidate's tree plus the working tree's changes, child of it. */
  readonly oid: string;
  /** The paths whose working-tree state it holds (added, changed or deleted after the candidate commit). */
  readonly paths: readonly string[];
}

/**
 * Commits what the working tree holds on top of commit `tip` (the candidate, or the kept commit
 * when nothing was committed), as a child of it, without touching the index or any ref: the files
 * that appeared or changed after the candidate commit (a user's new file while a discarded
 * iteration ran, a harness's output) and that the reset is about to remove or change back. The
 * caller keeps it reachable under `refs/loop/discarded/`, so nothing a revert removes is lost.
 * Changes that only touch the index (same content) do not count.
 *
 * @returns `undefined` when the working tree holds nothing that is not already in `tip`.
 */
export async function rescueWorktree(
  repo: Repo,
  tip: string,
  changes: readonly WorktreeChange[],
  signature: Signature,
  context: string,
): Promise<Rescue | undefined> {
  const lost = changes.filter(
    (change) =>
      !(
        change.workdir?.oid !== undefined &&
        change.head?.oid === change.workdir.oid &&
        change.head.mode === change.workdir.mode
      ),
  );
  if (lost.length === 0) return undefined;
  // One pack for the rescue's blobs, trees and commit (see batchObjects); the caller names it after.
  return batchObjects(repo, async () => {
    const updates: FileUpdate[] = [];
    await inChunks(lost, async (change) => {
      const stored = change.workdir === undefined ? undefined : await storeWorktreeBlob(repo, change.path);
      updates.push({ path: change.path, blob: stored === undefined || stored === 'other' ? undefined : stored });
    });
    const base = await treeOfCommit(repo, tip);
    const tree = await buildTree(repo, base, updates.sort(byPath));
    if (tree === base) return undefined;
    const paths = lost.map((change) => change.path).sort();
    const listed = paths.slice(0, 50).join('\n');
    const oid = await writeCommitObject(repo, {
      message:
        `${RESCUE_SUBJECT}\n\n${context}\n\n` +
        `${listed}${paths.length > 50 ? `\n... and ${paths.length - 50} more` : ''}` +
        `\n`,
      tree,
      parent: [tip],
      author: signature,
      committer: signature,
    });
    return { oid, paths };
  });
}
