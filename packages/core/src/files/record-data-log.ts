import { readFile } from 'node:fs/promises';
import type { CandidateData, IntermediateReport, IterationRecord } from '../contracts/iteration-record.js';
import type { ResultsLog } from '../contracts/results-log.js';
import { appendDurable, writeTextAtomic } from './state-file.js';

/** Options of {@link withRecordData}. */
export interface RecordDataOptions {
  /** Absolute path of the sidecar file (auto-iterate: `<dir>/.loop/records.jsonl`). */
  readonly path: string;
  /** Told once when a sidecar write fails (disk full); the run goes on without that row's data. @default silent */
  readonly onError?: (message: string) => void;
}

/**
 * A results log whose rows keep their candidate record (`IterationRecord.data`: reports, metrics,
 * params, cost) across a resume, for a log whose own format has no room for it (seed 003's four
 * results.tsv columns stay as they are). After the wrapped log's row is written, the row's data
 * goes to a sidecar of JSON lines `{ "iteration": n, "data": {...} }` (durable append); `read`
 * puts each row's data back by iteration, the last line of an iteration winning (a torn row
 * repaired and redone); the baseline's row starts the file again. The sidecar is derived data: a missing or torn line
 * only leaves that
 * row without data, and a non-finite report value (written as `null`) reads back as NaN.
 */
export function withRecordData(log: ResultsLog, options: RecordDataOptions): ResultsLog {
  let failed = false;
  let checkedEnd = false;
  const write = async (record: IterationRecord) => {
    const line = `${JSON.stringify({ iteration: record.iteration, data: record.data ?? {} })}\n`;
    try {
      // The baseline starts a run: the sidecar starts again with it (an earlier run's lines go).
      if (record.iteration === 0) {
        await writeTextAtomic(options.path, line);
        checkedEnd = true;
        return;
      }
      if (!record.data || Object.keys(record.data).length === 0) return;
      let prefix = '';
      if (!checkedEnd) {
        // A line torn by a kill would swallow the next one: start on a fresh line.
        const text = await readFile(options.path, 'utf8').catch(() => '');
        if (text.length > 0 && !text.endsWith('\n')) prefix = '\n';
        checkedEnd = true;
      }
      await appendDurable(options.path, `${prefix}${line}`);
    } catch (error) {
      if (!failed)
        options.onError?.(
          `[loop] [results] could not ` +
            `write ${options.path}: ${(error as Error).message}; rows go on without ` +
            `their data`,
        );
      failed = true;
    }
  };
  return {
    ...log,
    name: `${log.name}+record-data`,
    append: async (record) => {
      await log.append(record);
      await write(record);
    },
    read: async () => {
      const rows = await log.read();
      const data = await readRecordData(options.path);
      // The baseline's line is written even without data (it restarts the file): `{}` is no data.
      return rows.map((r) => {
        const d = r.data === undefined ? data.get(r.iteration) : undefined;
        return d && Object.keys(d).length > 0 ? { ...r, data: d } : r;
      });
    },
    ...(log.amendLast
      ? {
          amendLast: async (record: IterationRecord) => {
            await log.amendLast!(record);
            await write(record);
          },
        }
      : {}),
  };
}

const isReport = (r: unknown): r is IntermediateReport =>
  typeof r === 'object' &&
  r !== null &&
  Number.isFinite((r as IntermediateReport).step) &&
  (typeof (r as IntermediateReport).value === 'number' || (r as { value: unknown }).value === null);

/**
 * The sidecar's data by iteration (see {@link withRecordData}); a missing file gives an empty map.
 * A torn line is skipped; a line's `reports` that is not a list of `{ step, value }` is left out
 * (its other data is kept).
 */
export async function readRecordData(path: string): Promise<Map<number, CandidateData>> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const out = new Map<number, CandidateData>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const parsed = JSON.parse(line) as { iteration?: unknown; data?: unknown };
      if (!Number.isInteger(parsed.iteration) || typeof parsed.data !== 'object' || parsed.data === null) continue;
      // A curve that is not a list of { step, value } (a hand-edited line) is dropped, not passed on to
      // pruners and proposers; NaN was written as null.
      const { reports: raw, ...rest } = parsed.data as CandidateData;
      const reports = Array.isArray(raw)
        ? raw.filter(isReport).map((r) => ({ step: r.step, value: r.value ?? Number.NaN }))
        : undefined;
      out.set(parsed.iteration as number, reports ? { ...rest, reports } : rest);
    } catch {
      // a torn line (killed mid-write): that row has no data
    }
  }
  return out;
}
