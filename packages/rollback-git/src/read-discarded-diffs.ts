import { runGit } from './git-cli.js';
import { readDiscardedRefs } from './read-discarded-refs.js';

/** What a discarded candidate changed (see {@link readDiscardedDiffs}). */
export interface DiscardedDiffText {
  /** The candidate's iteration. */
  readonly iteration: number;
  /** `git diff <oid>^ <oid>`: the candidate against the state it was tried on; cut to `maxBytes`. */
  readonly diff: string;
}

/**
 * The diffs of the discarded candidates of `iterations` (each `refs/loop/discarded/<iteration>`,
 * its last attempt), in the order asked; an iteration with no discarded ref is left out. Read-only:
 * `git diff` between two commits writes nothing (no index refresh). Each diff is cut to `maxBytes`
 * bytes with a line saying how much was left out.
 *
 * @param dir - Absolute working-tree root.
 * @throws {LoopError} `NOT_A_REPOSITORY` when the refs cannot be read; git's errors as `runGit`'s.
 */
export async function readDiscardedDiffs(
  dir: string,
  iterations: readonly number[],
  maxBytes = 4000,
): Promise<DiscardedDiffText[]> {
  const refs = await readDiscardedRefs(dir);
  const out: DiscardedDiffText[] = [];
  for (const iteration of iterations) {
    const ref = refs.filter((r) => r.iteration === iteration).at(-1);
    if (!ref) continue;
    const diff = await runGit({ cwd: dir }, ['diff', '--no-color', '--no-ext-diff', `${ref.oid}^`, ref.oid], {
      advice: `the discarded commit of iteration ${iteration} is not in ${dir}`,
    });
    const bytes = Buffer.from(diff, 'utf8');
    const text =
      bytes.length <= maxBytes
        ? diff
        : `${bytes.subarray(0, maxBytes).toString('utf8')}\n... ` +
          `(${bytes.length - maxBytes} more bytes of diff left out)\n`;
    out.push({ iteration, diff: text });
  }
  return out;
}
