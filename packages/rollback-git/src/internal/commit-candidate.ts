import git from 'isomorphic-git';
import { buildTree, type FileUpdate } from './build-tree.js';
import { inChunks } from './chunks.js';
import { storeWorktreeBlob } from './fs-ops.js';
import { claimIndexMatches } from './index-state.js';
import { updateIndex, type StagedFile } from './index-update.js';
import { batchObjects, writeCommitObject } from './object-store.js';
import { resolveRefFast } from './ref-read.js';
import { gitArgs, type Repo } from './repo.js';
import { treeOfCommit } from './tree-diff.js';
import { indexBasisOf, scanWorktree, type WorktreeChange } from './worktree-scan.js';

/** Author and committer of a candidate commit. */
export interface Signature {
  readonly name: string;
  readonly email: string;
  /** Seconds since the epoch. */
  readonly timestamp: number;
  /** Minutes, as git stores it (0 for UTC). */
  readonly timezoneOffset: number;
}

/** What {@link commitCandidate} commits. */
export interface CandidateCommit {
  /** The branch to move to the new commit (HEAD points at it). */
  readonly branchRef: string;
  /** Paths the scan is limited to, or `undefined` for the whole tree. */
  readonly bases: readonly string[] | undefined;
  /** The parent: the checkpoint, also for a repair attempt. */
  readonly parent: string;
  /** The full commit message. */
  readonly message: string;
  /** Author and committer. */
  readonly signature: Signature;
  /**
   * The changes against the branch tip already found by a scan of this working tree (the
   * `changedPaths()` the surface check just made): committed as they are now on disk, without
   * scanning again. `undefined`: scan.
   */
  readonly known?: readonly WorktreeChange[] | undefined;
}

/**
 * Commits the working tree's changes against the branch tip (within `bases`; or the `known`
 * changes, each read from disk now) as a child of `parent`: writes the changed blobs, builds only
 * the trees on the way to them, writes the commit (all in one pack, see `batchObjects`), stages the changes (one
 * rewrite of the index, see `updateIndex`; deferred when only existing entries change: the keep
 * writes it, a revert stages back what the file holds, see internal/index-lag.ts), then moves the branch. For a
 * repair attempt the tip is the previous candidate, so its changes are carried over and the new
 * commit replaces it.
 *
 * @returns the new commit's oid.
 */
export async function commitCandidate(repo: Repo, candidate: CandidateCommit): Promise<string> {
  const args = gitArgs(repo);
  const tip = await resolveRefFast(repo, candidate.branchRef);
  const changes = candidate.known ?? (await scanWorktree(repo, tip, candidate.bases));
  const updates: FileUpdate[] = [];
  const toAdd: StagedFile[] = [];
  const toRemove: string[] = [];
  // Blobs, trees and the commit go into one pack (see batchObjects); the index and the branch
  // name them only once it is written.
  const oid = await batchObjects(repo, async () => {
    await inChunks(changes, async (change) => {
      const stored = change.workdir === undefined ? undefined : await storeWorktreeBlob(repo, change.path);
      if (stored !== undefined && stored !== 'other') {
        updates.push({ path: change.path, blob: stored });
        toAdd.push({ path: change.path, blob: { oid: stored.oid, mode: stored.mode }, stats: stored.stats });
      } else {
        updates.push({ path: change.path, blob: undefined });
        if (change.indexed) toRemove.push(change.path);
      }
    });
    const tree = await buildTree(repo, await treeOfCommit(repo, tip), updates);
    return writeCommitObject(repo, {
      message: candidate.message,
      tree,
      parent: [candidate.parent],
      author: candidate.signature,
      committer: candidate.signature,
    });
  });
  // Every difference between the tip, the index and the tree was in `changes` (a whole-tree
  // scan): staged as committed, the index equals the new commit's tree.
  const basis = indexBasisOf(changes);
  if (toAdd.length === 0 && toRemove.length === 0) claimIndexMatches(repo, basis, oid);
  else if ((await updateIndex(repo, toAdd, toRemove, { matches: { commit: oid, basis }, defer: true })) === undefined) {
    // An index we do not rewrite (version 4, conflicts, split): isomorphic-git stages, one call each.
    for (const path of toRemove) await git.remove({ ...args, filepath: path });
    if (toAdd.length > 0) await git.add({ ...args, filepath: toAdd.map((file) => file.path), force: true });
  }
  await git.writeRef({ ...args, ref: candidate.branchRef, value: oid, force: true });
  return oid;
}
