import { diffCommits, type BlobEntry } from './tree-diff.js';
import type { Repo } from './repo.js';
import { indexBasisOf, scanWorktree, type WorktreeChange } from './worktree-scan.js';

/** One path a reset must bring to the target. */
export interface ResetPlanEntry {
  /** Relative path. */
  readonly path: string;
  /** The blob in the target commit, or `undefined` when the target has no file there. */
  readonly target: BlobEntry | undefined;
  /** Whether the index holds the path now (so a removal must update it). */
  readonly inIndex: boolean;
  /**
   * True when the plan's scan saw a working tree that does not hold the target here (another blob
   * or mode, or no file), so the reset writes it without reading it first; `undefined`: not known.
   */
  readonly worktreeDiffers?: boolean;
}

/** A reset plan, and the index its whole-tree scan read (see `indexBasisOf`). */
export interface ResetPlan {
  /** The paths to touch, sorted. */
  readonly entries: ResetPlanEntry[];
  /** The stat key of the index the working-tree scan saw; `undefined` for a path scan. */
  readonly basis: string | undefined;
}

/**
 * The paths a reset from commit `fromOid` (the branch tip the working tree is based on) to
 * `targetOid` must touch: the blobs that differ between the two commits (a walk that skips
 * identical subtrees), plus every path where the index or working tree differ from `fromOid`
 * (within `bases` when given, else the whole tree). Sorted by path. `scan`: that working-tree
 * scan against `fromOid` when the caller already made it.
 */
export async function planReset(
  repo: Repo,
  fromOid: string,
  targetOid: string,
  bases: readonly string[] | undefined,
  scan?: readonly WorktreeChange[],
): Promise<ResetPlan> {
  const plan = new Map<string, ResetPlanEntry>();
  // A whole-tree scan lists every path where the working tree differs from `fromOid`: any other
  // path of the diff holds `fromOid`'s blob, which is not the target's.
  const wholeTree = bases === undefined;
  for (const change of await diffCommits(repo, fromOid, targetOid)) {
    plan.set(change.path, {
      path: change.path,
      target: change.to,
      inIndex: change.from !== undefined,
      ...(wholeTree ? { worktreeDiffers: true } : {}),
    });
  }
  const changes = scan ?? (await scanWorktree(repo, fromOid, bases));
  for (const change of changes) {
    const fromDiff = plan.get(change.path);
    // Outside the commit diff the target holds what `fromOid` holds.
    const target = fromDiff === undefined ? change.head : fromDiff.target;
    const workdir = change.workdir;
    const known = workdir === undefined || workdir.oid !== undefined;
    const differs =
      workdir === undefined
        ? target !== undefined
        : target === undefined || workdir.oid !== target.oid || workdir.mode !== target.mode;
    plan.set(change.path, {
      path: change.path,
      target,
      inIndex: change.indexed,
      ...(known ? { worktreeDiffers: differs } : {}),
    });
  }
  return {
    entries: [...plan.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    basis: indexBasisOf(changes),
  };
}
