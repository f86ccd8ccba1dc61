import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CandidateData, LoopEvent, LoopEventType } from '@loop/core';

/**
 * The CLI's per-iteration timing sidecar, relative to the workspace: one JSON line per row the
 * run wrote (`loop run` / `loop resume` of an auto-iterate config). results.tsv keeps the seed's
 * four columns; this file adds when each iteration started, how long it took and its named
 * metrics, for `loop report --format csv|json`. It is derived data: a missing or torn file only
 * leaves those columns empty.
 */
export const ITERATION_TIMES_FILE = '.loop/iterations.jsonl';

/** One line of {@link ITERATION_TIMES_FILE}. */
export interface IterationTimes {
  /** The row's iteration (0 is the baseline). */
  readonly iteration: number;
  /** When the iteration started (its first attempt), ISO 8601 UTC. */
  readonly startedAt: string;
  /** Wall time from the start to the row (proposal, every attempt, evaluation, decision), seconds. */
  readonly durationS: number;
  /** The evaluation's run time as the engine measured it, seconds; absent for a halted row. */
  readonly runS?: number;
  /** The engine's status: baseline, kept, reverted, rejected, crash or halted. */
  readonly status: string;
  /** The score, `null` for none. */
  readonly score: number | null;
  /**
   * Named metrics of the run: the record's `dimensions` and its `data.metrics` (the latter win on a
   * shared name), `{}` when the scorer gives none.
   */
  readonly metrics: Readonly<Record<string, number>>;
  /**
   * The candidate's whole record (`IterationRecord.data`: metrics, reports, params, cost, preset keys). @default none
   */
  readonly data?: CandidateData;
}

/** The events that write a row, and so a line. */
const ROW_EVENTS = ['baseline', 'kept', 'reverted', 'crash', 'halted'] as const;

/** The events {@link createIterationTimesWriter} listens to. */
export const ITERATION_TIMES_EVENTS: readonly LoopEventType[] = ['iteration-started', ...ROW_EVENTS];

/**
 * A listener for the loop's events that appends one {@link IterationTimes} to `path` per row
 * event (the baseline's line replaces the file: a new run). `now` is the clock (ms since the
 * epoch). A write that fails is reported to `onError` once and never stops the run.
 */
export function createIterationTimesWriter(
  path: string,
  options: { now?: () => number; onError?: (message: string) => void } = {},
): { event: (e: LoopEvent) => void } {
  const now = options.now ?? Date.now;
  const started = new Map<number, number>();
  let failed = false;
  return {
    event: (e) => {
      if (e.type === 'iteration-started') {
        if (e.attempt === 0 || !started.has(e.iteration)) started.set(e.iteration, now());
        return;
      }
      if (!(ROW_EVENTS as readonly string[]).includes(e.type) || !('record' in e)) return;
      if (e.type === 'crash' && e.willRepair) return; // a repair attempt follows: its row comes later
      const end = now();
      const runMs = 'durationMs' in e ? e.durationMs : undefined;
      const start = started.get(e.record.iteration) ?? end - (runMs ?? 0);
      started.delete(e.record.iteration);
      const line: IterationTimes = {
        iteration: e.record.iteration,
        startedAt: new Date(start).toISOString(),
        durationS: (end - start) / 1000,
        ...(runMs !== undefined ? { runS: runMs / 1000 } : {}),
        status: e.record.status,
        score: e.record.score,
        metrics: { ...(e.record.dimensions ?? {}), ...(e.record.data?.metrics ?? {}) },
        ...(e.record.data && Object.keys(e.record.data).length > 0 ? { data: e.record.data } : {}),
      };
      try {
        mkdirSync(dirname(path), { recursive: true });
        // A baseline row starts a run: the file starts again with it (a refused start never gets here).
        (e.type === 'baseline' ? writeFileSync : appendFileSync)(path, `${JSON.stringify(line)}\n`);
      } catch (error) {
        const why = (error as Error).message;
        const message = `[loop] [cli] could not write ${path}: ${why}; loop report has no times for these rows`;
        if (!failed) options.onError?.(message);
        failed = true;
      }
    },
  };
}

/**
 * The lines of a workspace's {@link ITERATION_TIMES_FILE} by iteration (the last line of an
 * iteration wins: a resumed run re-runs the interrupted one). A missing file gives an empty map;
 * a line that does not parse is skipped.
 */
export async function readIterationTimes(dir: string): Promise<Map<number, IterationTimes>> {
  const text = await readFile(join(dir, ITERATION_TIMES_FILE), 'utf8').catch(() => '');
  const out = new Map<number, IterationTimes>();
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      const line = JSON.parse(raw) as IterationTimes;
      if (Number.isInteger(line.iteration)) out.set(line.iteration, line);
    } catch {
      // a torn last line (killed mid-write): its row has no times
    }
  }
  return out;
}
