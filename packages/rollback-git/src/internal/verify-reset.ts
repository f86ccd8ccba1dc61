import git, { STAGE, type WalkerEntry } from 'isomorphic-git';
import { readWorktreeBlob } from './fs-ops.js';
import { readIndexFile } from './index-file.js';
import { PathSet } from './path-set.js';
import { resolveRefFast } from './ref-read.js';
import { gitArgs, type Repo } from './repo.js';
import type { ResetPlanEntry } from './reset-plan.js';
import { blobOf, type BlobEntry } from './tree-diff.js';

async function stageBlobs(repo: Repo, paths: PathSet): Promise<Map<string, BlobEntry>> {
  const found = new Map<string, BlobEntry>();
  if (paths.size === 0) return found;
  const index = await readIndexFile(repo);
  if (index !== undefined) {
    for (const [path, entry] of index.entries)
      if (paths.has(path)) found.set(path, { oid: entry.oid, mode: entry.mode });
    return found;
  }
  await git.walk({
    ...gitArgs(repo),
    trees: [STAGE()],
    map: async (path: string, [entry]: Array<WalkerEntry | null>) => {
      if (!paths.worthWalking(path)) return null;
      if (paths.has(path)) {
        const blob = await blobOf(entry ?? null);
        if (blob !== undefined) found.set(path, blob);
      }
      return undefined;
    },
  });
  return found;
}

/**
 * Checks a reset: HEAD is the branch, the branch points at `targetOid`, and for every planned path
 * the working tree hashes to the target blob with its mode (or holds no file when the target has
 * none) and the index holds the target blob (or nothing).
 *
 * `staged`: the index entries of the planned paths as the reset just wrote them (see
 * `updateIndex`); without it the index is parsed again.
 *
 * @returns the paths (and refs) that are wrong; empty when the reset is verified.
 */
export async function verifyReset(
  repo: Repo,
  plan: readonly ResetPlanEntry[],
  branchRef: string,
  targetOid: string,
  staged?: ReadonlyMap<string, BlobEntry | undefined>,
): Promise<string[]> {
  const wrong: string[] = [];
  const head = await resolveRefFast(repo, 'HEAD', 2).catch(() => undefined);
  if (head !== branchRef) wrong.push('HEAD');
  const tip = await resolveRefFast(repo, branchRef).catch(() => undefined);
  if (tip !== targetOid) wrong.push(branchRef);

  const index = staged ?? (await stageBlobs(repo, new PathSet(plan.map((entry) => entry.path))));
  for (const entry of plan) {
    const actual = await readWorktreeBlob(repo, entry.path);
    const stage = index.get(entry.path);
    const target = entry.target;
    const worktreeOk =
      target === undefined
        ? actual === undefined || actual === 'other'
        : actual !== undefined && actual !== 'other' && actual.oid === target.oid && actual.mode === target.mode;
    const indexOk =
      target === undefined
        ? stage === undefined
        : stage !== undefined && stage.oid === target.oid && stage.mode === target.mode;
    if (!worktreeOk || !indexOk) wrong.push(entry.path);
  }
  return wrong;
}
