import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sanitizeCell } from '@loop/core/files';
import { parseAutoIterateTsv } from './results-tsv.js';

/** Where `loop run --new` (the `archive` option) moves earlier runs, relative to the workspace. */
export const EARLIER_RUNS_DIR = '.loop/runs';

/**
 * One line per earlier run archived under `.loop/runs/<tag>/` (for an agent's prompt: core's
 * `earlierRuns` option): where its results.tsv is, how many iterations it ran, its baseline and
 * best kept row. A folder without a readable results.tsv is left out. Oldest first.
 *
 * @param dir - The workspace (absolute).
 */
export async function describeEarlierRuns(dir: string, resultsFile = 'results.tsv'): Promise<string[]> {
  const names = (await readdir(join(dir, EARLIER_RUNS_DIR)).catch(() => [] as string[])).sort();
  const out: string[] = [];
  for (const name of names) {
    const rel = `${EARLIER_RUNS_DIR}/${name}/${resultsFile.split('/').at(-1)}`;
    let rows;
    try {
      rows = parseAutoIterateTsv(await readFile(join(dir, rel), 'utf8'), rel);
    } catch {
      continue;
    }
    const base = rows[0];
    if (!base) continue;
    const kept = rows.filter((r) => r.status === 'kept').at(-1);
    const best = kept
      ? `best ${kept.score} (iteration ${kept.iteration}: ${sanitizeCell(kept.description).slice(0, 120)})`
      : 'nothing kept';
    out.push(`${rel}: ${rows.length - 1} iterations, baseline ${base.score}, ${best}`);
  }
  return out;
}
