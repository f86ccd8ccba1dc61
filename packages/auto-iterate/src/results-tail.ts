import { open, readFile } from 'node:fs/promises';
import { LoopError, type IterationRecord } from '@loop/core';
import { parseAutoIterateTsv } from './results-tsv.js';

/** What {@link readRunRows} read, and the repair it made. */
export interface RunRows {
  /** The rows of results.tsv (none when the file is missing). */
  readonly rows: IterationRecord[];
  /** One line saying what was repaired (`results.tsv line N ...`), when something was. */
  readonly repaired?: string;
}

/** The iteration state.json records as completed, or undefined (no file, unreadable, no number). */
async function countedIteration(statePath: string): Promise<number | undefined> {
  try {
    const state = JSON.parse(await readFile(statePath, 'utf8')) as { iteration?: unknown };
    return typeof state.iteration === 'number' ? state.iteration : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads results.tsv for a start or a resume, under the workspace lock. The writer appends each
 * row with its newline in one fsynced write, and state.json is written after the row, so a last
 * row without its final newline means one of two things:
 *
 * - state.json does not count it yet: the append was cut by a kill. `parseAutoIterateTsv`
 *   refuses it (`RESULTS_CORRUPT`: add the newline if the row is complete, else delete the line;
 *   then resume), and either works, since the state does not count the row.
 * - state.json counts it: the row was complete when written and lost its ending afterwards (an
 *   editor, a truncation). When the row parses, the newline is added (with `repair`; a start
 *   without `resume` only reads it) and `repaired` says so. When it does not (cut inside), the
 *   error says to delete the line and state.json, since deleting the line alone makes the resume
 *   refuse with `RESUME_MISMATCH` (the state would count a row that is gone).
 *
 * @param resultsPath absolute path of results.tsv.
 * @param statePath absolute path of `.loop/state.json`.
 * @param repair add a lost final newline to a row state.json counts (a resume); `false` reads only.
 * @throws {LoopError} `RESULTS_CORRUPT` naming the line and what to do.
 */
export async function readRunRows(resultsPath: string, statePath: string, repair: boolean): Promise<RunRows> {
  let text: string;
  try {
    text = await readFile(resultsPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { rows: [] };
    throw error;
  }
  const lines = text.split('\n');
  if (text === '' || lines.at(-1) === '' || lines.length < 2) return { rows: parseAutoIterateTsv(text, resultsPath) };
  const line = lines.length;
  const iteration = line - 2;
  const counted = await countedIteration(statePath);
  // refused: a torn append
  if (counted === undefined || counted < iteration) return { rows: parseAutoIterateTsv(text, resultsPath) };
  let rows: IterationRecord[];
  try {
    rows = parseAutoIterateTsv(`${text}\n`, resultsPath);
  } catch (error) {
    if (error instanceof LoopError && error.details.line !== line) throw error; // an earlier line is malformed
    throw new LoopError(
      'RESULTS_CORRUPT',
      `[loop] [results-tsv] ${resultsPath}:${line}: the last row ` +
        `(iteration ${iteration}) is cut: it has no final newline and does not ` +
        `parse, and ${statePath} already counts it, so deleting the line alone ` +
        `would make the resume refuse (RESUME_MISMATCH). Restore the row if you ` +
        `have a copy; otherwise delete line ${line} and ${statePath}, then resume ` +
        `(it goes on from the last kept commit, and iteration ${iteration} is run ` +
        `again)`,
      { cause: error, details: { path: resultsPath, line, torn: true, statePath } },
    );
  }
  if (!repair) return { rows };
  const handle = await open(resultsPath, 'a');
  try {
    await handle.appendFile('\n', 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  return {
    rows,
    repaired:
      `results.tsv line ${line} (iteration ${iteration}, counted by ` +
      `state.json) had lost its final newline; the row is complete, the newline ` +
      `was added`,
  };
}
