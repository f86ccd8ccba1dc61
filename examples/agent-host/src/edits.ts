import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The value of `x` the host's "agent" tries at iterations 1..20: improvements (kept), worse values
 * (discarded), two negative ones (crashes: score.mjs exits 1), the kept value again (11, 14, 13:
 * the tree is unchanged, not evaluated) and a discarded one again (16: `skipDuplicates` records it
 * without running it).
 */
export const XS: readonly number[] = [3, 5, 2, 8, 17, -1, 11, 4, 16, 11, 20, 10, 14, 15, -2, 12, 14, 13, 16, 13];

/**
 * The host's edit for `iteration` (1-based, wrapping after {@link XS}): writes `params.json` in
 * `dir` and returns the one-line description told to the loop.
 */
export function edit(dir: string, iteration: number): string {
  const x = XS[(iteration - 1) % XS.length]!;
  writeFileSync(join(dir, 'params.json'), `${JSON.stringify({ x })}\n`);
  return `x = ${x}`;
}
