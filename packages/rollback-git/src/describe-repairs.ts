import type { GitRestoreReport } from './git-reset-rollback-types.js';
import { shortId } from './short-id.js';

/**
 * The one line a caller prints after a resume (issue 12): `resume repaired: index (torn) rebuilt
 * from abc1234; stale .git/index.lock removed`, or `undefined` when nothing was repaired.
 */
export function describeRepairs(repairs: readonly string[]): string | undefined {
  return repairs.length === 0 ? undefined : `resume repaired: ${repairs.join('; ')}`;
}

/** Up to 5 paths, comma-separated, then `and N more` (for repair lines a user reads). */
export function listPaths(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).join(', ');
  return paths.length > 5 ? `${shown} and ${paths.length - 5} more` : shown;
}

/**
 * The repair lines of a recover after its reset: an orphan candidate (committed, not recorded as
 * kept) saved under `ref`, working-tree files in no commit saved there, the paths reset to `kept`.
 */
export function recoverRepairLines(o: {
  tip: string;
  kept: string;
  ref: string | undefined;
  rescued: readonly string[];
  restore: GitRestoreReport | undefined;
}): string[] {
  const { tip, kept, ref, rescued } = o;
  const lines: string[] = [];
  if (tip !== kept) lines.push(`orphan candidate ${shortId(tip)} (committed, not recorded as kept) saved as ${ref}`);
  if (rescued.length > 0)
    lines.push(
      `${rescued.length} working-tree file${rescued.length === 1 ? '' : 's'} ` +
        `in no commit (${listPaths(rescued)}) saved as ${ref} (\`git ` +
        `checkout ${ref} -- <path>\` brings one back)`,
    );
  const touched = o.restore?.paths.length ?? 0;
  if (touched > 0)
    lines.push(
      `${touched} path${touched === 1 ? '' : 's'} ` +
        `(${listPaths(o.restore!.paths)}) reset ` +
        `to ${shortId(kept)}${o.restore?.fallback ? ' (full checkout)' : ''}`,
    );
  return lines;
}
