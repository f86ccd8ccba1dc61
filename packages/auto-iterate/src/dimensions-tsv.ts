import { readFile } from 'node:fs/promises';
import { type IterationRecord, type ResultsLog, type Scorer } from '@loop/core';
import { appendDurable, sanitizeCell } from '@loop/core/files';
import { toAutoIterateStatus } from './results-tsv.js';

/** A dimension line of an evaluator's output: `dim.<name>: <number>` (what `@loop/evaluators` prints). */
export const DIMENSION_LINE = /^dim\.([A-Za-z0-9_.-]+):\s*(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*$/;

/** The dimensions of a log text: the last `dim.<name>: <n>` line of each name, in first-seen order. */
export function parseDimensionLines(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = DIMENSION_LINE.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

/**
 * Wraps a scorer so a usable score also carries the run log's `dim.<name>: <n>` lines as its
 * `dimensions` (the engine then puts them on the iteration record). A crash stays a crash; a log
 * without dimension lines leaves the score as the wrapped scorer gave it.
 */
export function withLogDimensions(scorer: Scorer): Scorer {
  return {
    ...scorer,
    score: async (run) => {
      const result = await scorer.score(run);
      if (!result.ok || result.dimensions || !run.logPath) return result;
      const text = await readFile(run.logPath, 'utf8').catch(() => '');
      const dimensions = parseDimensionLines(text);
      return Object.keys(dimensions).length > 0 ? { ...result, dimensions } : result;
    },
  };
}

/** Options of {@link withDimensionsTsv}. */
export interface DimensionsTsvOptions {
  /** Absolute path of dimensions.tsv (beside results.tsv, never tracked by git). */
  path: string;
  /** Length of the commit column. @default 7 */
  commitLength?: number;
}

/**
 * A results log that also writes every row's dimensions to `dimensions.tsv`:
 * `commit score status <dim1> <dim2> ...`, the columns fixed by the first row that has
 * dimensions (a later row's unknown dimension is left out, a missing one is `-`), so a user sees
 * which dimension moved. The row goes to `results` first (the engine's durable record); a kill
 * between the two writes loses at most that one dimensions row. Reading and amending use
 * `results` only.
 */
export function withDimensionsTsv(results: ResultsLog, options: DimensionsTsvOptions): ResultsLog {
  const { path, commitLength = 7 } = options;
  let columns: string[] | undefined;
  const append = async (record: IterationRecord): Promise<void> => {
    await results.append(record);
    if (!columns) {
      const first = (await readFile(path, 'utf8').catch(() => '')).split('\n', 1)[0] ?? '';
      if (first.startsWith('commit\tscore\tstatus')) columns = first.split('\t').slice(3);
    }
    const dims = record.dimensions ?? {};
    let header = '';
    if (!columns) {
      if (Object.keys(dims).length === 0) return;
      columns = Object.keys(dims);
      header = `${['commit', 'score', 'status', ...columns].join('\t')}\n`;
    }
    const commit = sanitizeCell(record.candidateId).slice(0, commitLength) || '-';
    const score = record.score === null ? (record.status === 'crash' ? 'crash' : '-') : String(record.score);
    const row = [
      commit,
      score,
      toAutoIterateStatus(record.status),
      ...columns.map((c) => (dims[c] === undefined ? '-' : String(dims[c]))),
    ].join('\t');
    await appendDurable(path, `${header}${row}\n`);
  };
  return { ...results, name: `${results.name}+dimensions-tsv`, append };
}
