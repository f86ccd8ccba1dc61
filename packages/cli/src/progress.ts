import { readFileSync } from 'node:fs';
import { formatIterationLine, formatSummary, parseAutoIterateTsv } from '@loop/auto-iterate';
import type { LoopEvent, LoopSummary } from '@loop/core';
import { createLogUpdate } from 'log-update';

/** What the progress display knows about a run, updated from loop events. */
export interface ProgressState {
  /** The metric's name. */
  metricName: string;
  /** Iterations after the baseline to run; 0 means until interrupted. */
  maxIterations: number;
  /** Time budget of one run in seconds. */
  timeBudgetS: number;
  /** When the run started, ms since the epoch. */
  startedAt: number;
  /** The iteration in flight (0 is the baseline), or `undefined` between iterations. */
  iteration: number | undefined;
  /** When the iteration in flight started, ms since the epoch. */
  iterationStartedAt: number | undefined;
  /** The last completed iteration, or -1 before the baseline. */
  completed: number;
  /** The best kept score so far, or `undefined` before the baseline. */
  best: number | undefined;
  /** Kept / discarded / crashed iterations so far (baseline excluded). */
  counts: { keep: number; discard: number; crash: number };
}

/** A new {@link ProgressState} for a run starting at `now`. */
export function initialProgress(
  metricName: string,
  maxIterations: number,
  timeBudgetS: number,
  now: number,
): ProgressState {
  return {
    metricName,
    maxIterations,
    timeBudgetS,
    startedAt: now,
    iteration: undefined,
    iterationStartedAt: undefined,
    completed: -1,
    best: undefined,
    counts: { keep: 0, discard: 0, crash: 0 },
  };
}

/** Kept / discarded / crashed iterations (baseline excluded), as {@link ProgressState.counts} holds them. */
export type ProgressCounts = ProgressState['counts'];

/**
 * Applies one loop event to the progress state (mutates and returns it). `priorCounts` are the
 * counts of the rows already in results.tsv when a `resumed` event arrives, so a resumed run's
 * display counts the whole run, as its summary does, not only this session.
 */
export function updateProgress(
  state: ProgressState,
  event: LoopEvent,
  now: number,
  priorCounts?: ProgressCounts,
): ProgressState {
  switch (event.type) {
    case 'iteration-started':
      if (event.attempt === 0 || state.iteration !== event.iteration) state.iterationStartedAt = now;
      state.iteration = event.iteration;
      break;
    case 'baseline':
      state.best = event.record.score ?? undefined;
      state.completed = 0;
      state.iteration = undefined;
      break;
    case 'resumed':
      state.best = event.best;
      state.completed = event.iteration;
      if (priorCounts) state.counts = { ...priorCounts };
      break;
    case 'kept':
      state.best = event.record.score ?? state.best;
      state.counts.keep += 1;
      state.completed = event.record.iteration;
      state.iteration = undefined;
      break;
    case 'reverted':
      state.counts.discard += 1;
      state.completed = event.record.iteration;
      state.iteration = undefined;
      break;
    case 'crash':
      if (!event.willRepair) {
        state.counts.crash += 1;
        state.completed = event.record.iteration;
        state.iteration = undefined;
      }
      break;
    default:
      break;
  }
  return state;
}

/** `83 s` → `1m23s`; hours when long. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

function fmt(x: number | undefined): string {
  return x === undefined ? '-' : Number(x.toPrecision(6)).toString();
}

/**
 * The live display's text at `now`: iteration N of M, elapsed time, time left in the current run
 * (its time budget minus what it used), best so far and the counts. Two lines, no colours.
 */
export function formatProgress(state: ProgressState, now: number): string {
  const of = state.maxIterations > 0 ? ` of ${state.maxIterations}` : '';
  // Between iterations the next one is shown, unless the last one is done: then "iteration M of M".
  const next = state.completed + 1;
  const finished = state.iteration === undefined && state.maxIterations > 0 && next > state.maxIterations;
  const current = state.iteration ?? (finished ? state.maxIterations : next);
  const label = current === 0 ? 'baseline' : `iteration ${current}${of}${finished ? ' (done)' : ''}`;
  const elapsed = formatDuration(now - state.startedAt);
  let left = 'waiting';
  if (state.iteration !== undefined && state.iterationStartedAt !== undefined) {
    const leftMs = state.timeBudgetS * 1000 - (now - state.iterationStartedAt);
    left = leftMs >= 0 ? `${formatDuration(leftMs)} left in this run` : `${formatDuration(-leftMs)} over budget`;
  }
  const c = state.counts;
  return (
    `${label}  |  elapsed ${elapsed}  | ` +
    ` ${left}\nbest ${state.metricName} ${fmt(state.best)}  |  keep ${c.keep} ` +
    ` discard ${c.discard}  crash ${c.crash}`
  );
}

/** Receives a run's events and prints them. */
export interface Reporter {
  /** A line that is not an event (the header, notices). */
  readonly info: (line: string) => void;
  /** Called for every loop event, in order. */
  readonly event: (event: LoopEvent) => void;
  /** Called once when the run stops (with the summary) or fails (without one). */
  readonly done: (summary?: LoopSummary) => void;
}

/** Options of {@link createPlainReporter} and {@link createTtyReporter}. */
export interface ReporterOptions {
  /** The stream to write to (stdout). */
  stream: NodeJS.WritableStream;
  /** The metric's name. */
  metricName: string;
  /** Iterations to run (0: until interrupted). */
  maxIterations: number;
  /** Time budget per run in seconds. */
  timeBudgetS: number;
  /** Now in ms. @default Date.now */
  now?: () => number;
  /** Redraw interval of the live display in ms. @default 1000 */
  refreshMs?: number;
  /**
   * On `resumed`: the counts of the rows the interrupted run wrote (see {@link countResultsRows}). @default none (this
   * session only)
   */
  countsBefore?: (iteration: number) => ProgressCounts | undefined;
}

/**
 * Counts the rows of an auto-iterate results.tsv with `1 <= iteration <= upTo` (baseline
 * excluded): keep, discard (reverted and rejected) and crash. A missing or unreadable file counts nothing.
 */
export function countResultsRows(path: string, upTo: number): ProgressCounts {
  const counts = { keep: 0, discard: 0, crash: 0 };
  let rows: ReturnType<typeof parseAutoIterateTsv>;
  try {
    rows = parseAutoIterateTsv(readFileSync(path, 'utf8'), path);
  } catch {
    return counts;
  }
  for (const r of rows) {
    if (r.iteration < 1 || r.iteration > upTo) continue;
    if (r.status === 'kept') counts.keep += 1;
    else if (r.status === 'crash') counts.crash += 1;
    else if (r.status === 'reverted' || r.status === 'rejected') counts.discard += 1;
  }
  return counts;
}

/**
 * The plain progress line printed off a terminal after each finished iteration (issue 32):
 * `progress  iteration N of M | elapsed 1m05s | ~3m20s left | best score 1.5 | keep 1 discard 2 crash 0`.
 * Time left = the mean time per row of this session (`sessionFrom`: the last iteration before it,
 * -1 for a new run) times the iterations still to go; none for an unlimited run.
 */
export function formatProgressLine(state: ProgressState, now: number, sessionFrom = -1): string {
  const of = state.maxIterations > 0 ? ` of ${state.maxIterations}` : '';
  const elapsed = now - state.startedAt;
  const done = state.completed - sessionFrom;
  const toGo = Math.max(0, state.maxIterations - state.completed);
  const left = state.maxIterations > 0 && done > 0 ? ` | ~${formatDuration((elapsed / done) * toGo)} left` : '';
  const c = state.counts;
  return (
    `progress  iteration ${Math.max(0, state.completed)}${of} | ` +
    `elapsed ${formatDuration(elapsed)}${left} | ` +
    `best ${state.metricName} ${fmt(state.best)} | keep ${c.keep} ` +
    `discard ${c.discard} crash ${c.crash}`
  );
}

/**
 * True when `stream` can hold the live display: a TTY with a known, non-zero size, and `CI` unset
 * in `env`. A pty of size 0 (some `docker exec -t` and CI ptys report 0 columns and rows) gets the
 * plain lines instead: log-update draws nothing there, so nothing showed until the run ended.
 */
export function canShowLiveDisplay(
  stream: { isTTY?: boolean; columns?: number; rows?: number },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  return stream.isTTY === true && !env.CI && (stream.columns ?? 0) > 0 && (stream.rows ?? 0) > 0;
}

/**
 * Off a terminal (CI, nohup, a pipe): one plain line per event, from `formatIterationLine`, and
 * after each finished iteration one {@link formatProgressLine} (elapsed, time left, best, counts).
 */
export function createPlainReporter(options: ReporterOptions): Reporter {
  const now = options.now ?? Date.now;
  const write = (line: string) => options.stream.write(`${line}\n`);
  const state = initialProgress(options.metricName, options.maxIterations, options.timeBudgetS, now());
  let sessionFrom = -1;
  return {
    info: write,
    event: (event) => {
      const before = state.completed;
      if (event.type === 'resumed') sessionFrom = event.iteration;
      updateProgress(
        state,
        event,
        now(),
        event.type === 'resumed' ? options.countsBefore?.(event.iteration) : undefined,
      );
      const line = formatIterationLine(event);
      if (line !== undefined) write(line);
      if (event.type !== 'resumed' && state.completed !== before) write(formatProgressLine(state, now(), sessionFrom));
    },
    done: (summary) => {
      if (summary) write(`\n${formatSummary(summary, options.metricName)}`);
    },
  };
}

/**
 * On a terminal: a live two-line display (log-update) under the scrolling per-iteration lines,
 * redrawn every second.
 */
export function createTtyReporter(options: ReporterOptions): Reporter {
  const now = options.now ?? Date.now;
  const log = createLogUpdate(options.stream);
  const state = initialProgress(options.metricName, options.maxIterations, options.timeBudgetS, now());
  const render = () => log(formatProgress(state, now()));
  const timer = setInterval(render, options.refreshMs ?? 1000);
  timer.unref();
  return {
    info: (line) => log.persist(line),
    event: (event) => {
      updateProgress(
        state,
        event,
        now(),
        event.type === 'resumed' ? options.countsBefore?.(event.iteration) : undefined,
      );
      const line = formatIterationLine(event);
      if (line !== undefined) log.persist(line);
      render();
    },
    done: (summary) => {
      clearInterval(timer);
      render();
      log.done();
      if (summary) options.stream.write(`\n${formatSummary(summary, options.metricName)}\n`);
    },
  };
}
