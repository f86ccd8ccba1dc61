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
