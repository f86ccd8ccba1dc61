import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_FILES } from '@loop/auto-iterate';
import { type Direction } from '@loop/core';
import { isLocked, readJson, readRecordData } from '@loop/core/files';
import type { Spec } from 'vega';
import { logEntries, type LogEntry } from '../read/log.js';
import { keptRunLogs } from '../read/run-log.js';
import { withRowMetrics, type RowMetrics } from '../read/row-metrics.js';
import { countPoints } from '../report/plot-summary.js';
import { plotSpec } from '../report/plot.js';
import { curveSeriesOf, curvesPlotSpec } from '../report/curves-plot.js';
import { recordedMetricName, resolveDirection } from '../report/write-report.js';
import { parseResults, runningBest, type ResultsForm } from '../report/results.js';
import type { RunStateFile } from '../workspace-status.js';
import type { RunRef } from './discover.js';
import { ITERATION_TIMES_FILE, readIterationTimes } from '../iteration-times.js';
import { readSpendLine } from '../spend-line.js';

/**
 * The rows with the cost `.loop/iterations.jsonl` records for them (issue 29), where the line is the row's (same
 * score).
 */
async function withCosts<T extends LogEntry>(
  dir: string,
  rows: readonly T[],
): Promise<(T & { readonly costUsd?: number; readonly tokens?: number })[]> {
  const times = await readIterationTimes(dir);
  return rows.map((r) => {
    const t = times.get(r.iteration);
    const cost = t !== undefined && (t.score ?? null) === (r.score ?? null) ? t.data?.cost : undefined;
    return cost
      ? {
          ...r,
          ...(cost.usd !== undefined ? { costUsd: cost.usd } : {}),
          ...(cost.tokens !== undefined ? { tokens: cost.tokens } : {}),
        }
      : r;
  });
}

/**
 * The logs whose tails the dashboard shows, relative to the workspace (the harness's run.log, seed 003; the agent's and
 * the checks' logs).
 */
export const TAILED_LOGS = ['run.log', RUN_FILES.agentLog, '.loop/checks.log'] as const;

/** How much of each log's end is shown. @default 4096 bytes */
export const LOG_TAIL_BYTES = 4096;

/**
 * Where a run stands on the page: `running` (a live process holds the workspace lock),
 * `interrupted` (state.json says running but nobody holds the lock), `stopped` (by its policy),
 * `failed`, or `idle` (rows but no state.json, or no rows yet).
 */
export type RunPhase = 'running' | 'interrupted' | 'stopped' | 'failed' | 'idle';

/** Everything the page shows of one run (sent as JSON over the event stream). */
export interface RunView {
  /** {@link RunRef.id}. */
  readonly id: string;
  /** {@link RunRef.label}. */
  readonly label: string;
  /** The workspace. */
  readonly dir: string;
  /** results.tsv. */
  readonly results: string;
  /** The results.tsv form, `undefined` before the first row. */
  readonly form: ResultsForm | undefined;
  /** The metric's name (the run's recorded metricName, else the score column). */
  readonly metric: string;
  /** Which way is better. */
  readonly direction: Direction;
  /** Where it stands. */
  readonly phase: RunPhase;
  /** True when a live process holds the workspace lock (core `isLocked`). */
  readonly locked: boolean;
  /** state.json's stopReason and stopMessage, when stopped. */
  readonly stopReason?: string;
  /** The stop message. */
  readonly stopMessage?: string;
  /** state.json's error, when failed. */
  readonly error?: string;
  /**
   * Every row (`loop log --json`'s entries, with their metrics and broken constraints, and what its agent proposal cost
   * when it reported it), baseline first.
   */
  readonly rows: readonly (LogEntry & RowMetrics & { readonly costUsd?: number; readonly tokens?: number })[];
  /** What the agent's proposals cost, on kept, discarded and crashed rows (`loop status`'s cost line). @default none */
  readonly spent?: string;
  /** The best score so far, `null` before one. */
  readonly best: number | null;
  /** Experiments (baseline excluded), kept, discarded, crashed, halted. */
  readonly counts: ReturnType<typeof countPoints>;
  /** The progress plot's Vega spec (`loop report`'s {@link plotSpec}), `undefined` before the first row. */
  readonly spec: Spec | undefined;
  /**
   * The curves plot's Vega spec (`loop report`'s `curvesPlotSpec`: each run's intermediate reports), when the run has
   * any. @default none
   */
  readonly curves?: Spec;
  /**
   * The last {@link LOG_TAIL_BYTES} of each log in {@link TAILED_LOGS} that exists, then of the
   * newest kept iteration log (`.loop/logs/<n>.log`: with parallel candidates run.log holds only
   * the runs made in the workspace itself).
   */
  readonly logs: ReadonlyArray<{ readonly name: string; readonly tail: string }>;
  /**
   * The iterations whose run log is kept in `.loop/logs` (first runs, not re-runs), ascending: their rows get a log
   * button.
   */
  readonly keptLogs: readonly number[];
  /** A problem reading the run (a malformed results.tsv), shown instead of the plot. */
  readonly problem?: string;
  /**
   * The sealed holdout's visible-vs-holdout lines (issue 33), only when the dashboard was started
   * with `--holdout` (an agent with network access can reach 127.0.0.1). @default none
   */
  readonly holdout?: { readonly stateDir: string; readonly lines: readonly string[] };
}

/** The end of a file: its last `bytes` bytes, starting at a line, `undefined` when it does not exist. */
export async function tailFile(path: string, bytes = LOG_TAIL_BYTES): Promise<string | undefined> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const text = buffer.toString('utf8');
    return start > 0 ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    await handle.close();
  }
}

/**
 * What changes when a run moves: size and mtime of results.tsv, state.json and the logs, and the
 * lock. The server re-reads a run only when this string changes.
 */
export async function runSignature(run: RunRef): Promise<string> {
  const files = [
    run.results,
    ...(run.state ? [run.state] : []),
    ...TAILED_LOGS.map((l) => join(run.dir, l)),
    join(run.dir, RUN_FILES.logs),
    join(run.dir, ITERATION_TIMES_FILE),
  ];
  const parts = await Promise.all(
    files.map(async (f) =>
      stat(f).then(
        (s) => `${s.size}:${s.mtimeMs}`,
        () => '-',
      ),
    ),
  );
  const locked = await isLocked(run.lock).catch(() => false);
  return `${parts.join('|')}|${locked}`;
}

/**
 * Reads one run for the page: results.tsv through `loop report`'s reader ({@link parseResults}:
 * each preset's own parser), the plot spec `loop report` draws, `.loop/state.json` (stop reason,
 * status; auto-iterate only), the run's lock ({@link RunRef.lock}) and the logs' tails. A malformed results.tsv becomes
 * `problem`.
 */
export async function readRunView(run: RunRef, options: { readonly holdout?: boolean } = {}): Promise<RunView> {
  const view = await readRunViewOf(run);
  if (!options.holdout) return view;
  const { gapPoints, holdoutGapLines, holdoutStatusOf } = await import('../report/holdout-report.js');
  const status = await holdoutStatusOf(run.dir).catch(() => undefined);
  return status ? { ...view, holdout: { stateDir: status.stateDir, lines: holdoutGapLines(gapPoints(status)) } } : view;
}

async function readRunViewOf(run: RunRef): Promise<RunView> {
  const state = run.state
    ? ((await readJson(run.state).catch(() => undefined)) as RunStateFile | undefined)
    : undefined;
  const locked = await isLocked(run.lock).catch(() => false);
  const logs: Array<{ name: string; tail: string }> = [];
  for (const name of TAILED_LOGS) {
    const tail = await tailFile(join(run.dir, name));
    if (tail !== undefined) logs.push({ name, tail });
  }
  const keptLogs = (await keptRunLogs(run.dir)).filter((l) => l.repeat === 0).map((l) => l.iteration);
  const newest = keptLogs.at(-1);
  if (newest !== undefined) {
    const name = `${RUN_FILES.logs}/${newest}.log`;
    const tail = await tailFile(join(run.dir, name));
    if (tail !== undefined) logs.push({ name, tail });
  }
  const phase: RunPhase = locked
    ? 'running'
    : state?.status === 'running'
      ? 'interrupted'
      : state?.status === 'stopped'
        ? 'stopped'
        : state?.status === 'failed'
          ? 'failed'
          : 'idle';
  const common = {
    id: run.id,
    label: run.label,
    dir: run.dir,
    results: run.results,
    phase,
    locked,
    ...(state?.stopReason ? { stopReason: state.stopReason } : {}),
    ...(state?.stopMessage ? { stopMessage: state.stopMessage } : {}),
    ...(state?.error ? { error: `${state.error.code ?? ''} ${state.error.message ?? ''}`.trim() } : {}),
    logs,
    keptLogs,
  };
  const empty = {
    form: undefined,
    metric: 'score',
    direction: (state?.direction === 'maximize' ? 'maximize' : 'minimize') as Direction,
    rows: [],
    best: null,
    counts: countPoints([]),
    spec: undefined,
  };
  const text = await readFile(run.results, 'utf8').catch(() => undefined);
  if (text === undefined || text.trim() === '') return { ...common, ...empty };
  try {
    const parsed = parseResults(text, run.results);
    const data = { ...parsed, metric: (await recordedMetricName(run.dir)) ?? parsed.metric };
    const direction = await resolveDirection(run.results, data);
    const best = runningBest(data.points, direction).at(-1) ?? null;
    const spec = plotSpec(data, { direction, width: 760, height: 300 });
    // Each row's named metrics and broken constraints (issue 28) and its cost (issue 29) from the sidecar.
    const rows = await withCosts(run.dir, await withRowMetrics(run.dir, logEntries(data)));
    const spent = await readSpendLine(run.dir).catch(() => undefined);
    const series = curveSeriesOf(data.points, await readRecordData(join(run.dir, '.loop', 'records.jsonl')));
    const curves =
      series.length > 0
        ? curvesPlotSpec(series, { direction, metric: data.metric, width: 760, height: 260 })
        : undefined;
    return {
      ...common,
      form: data.form,
      metric: data.metric,
      direction,
      rows,
      best,
      counts: countPoints(data.points),
      spec,
      ...(curves ? { curves } : {}),
      ...(spent ? { spent } : {}),
    };
  } catch (error) {
    return { ...common, ...empty, problem: (error as Error).message };
  }
}
