import type { LoopError } from '../contracts/errors.js';
import type { IterationRecord } from '../contracts/iteration-record.js';
import type { LoopState } from '../contracts/loop-state.js';
import type { EnginePhase, EngineState } from '../contracts/state-store.js';
import type { SampleSummary } from '../stats/statistics.js';
import type { Direction } from '../contracts/types.js';
import { advanceCounters, emptyCounters, type Counters } from './counters.js';

/** Per-sample sub-scores or gates, one entry per sample. */
export type PerSample<T> = (Readonly<T> | undefined)[];

/** The halt a run ended with: the row label (or error code) and why. */
export interface HaltInfo {
  readonly status: string;
  readonly note: string;
  readonly code?: string;
}

/**
 * What one session of the engine remembers while it runs (history, counters, incumbent and baseline
 * samples, halt): built at start or on resume, persisted through `EngineState`. Internal to the engine.
 */
export interface SessionMemory {
  history: IterationRecord[];
  counters: Counters;
  /** The incumbent's samples and per-sample sub-scores and gates. */
  incumbentSamples: number[];
  incumbentDimensions: PerSample<Record<string, number>>;
  incumbentGates: Readonly<Record<string, boolean>> | undefined;
  baselineSamples: number[];
  baselineSpread?: SampleSummary;
  best: number;
  bestId: string;
  baseline: number;
  hints: string[];
  proposerFailures: number;
  startedAt: number;
  iterationsThisRun: number;
  halted?: HaltInfo;
  /** The error `run()` throws after the stop sequence (RESTORE_FAILED, HARNESS_TAMPERED). */
  fatal?: LoopError;
  /**
   * The digest of every tree evaluated in this session (the baseline's, the resumed incumbent's, each candidate's) to
   * its iteration.
   */
  evaluatedTrees: Map<string, number>;
  /** Events of a halting step, emitted after the stop sequence's state write. */
  deferred: (() => void)[];
}

/** Fresh session memory at `startedAt` (ms since the epoch). */
export function newSessionMemory(startedAt: number): SessionMemory {
  return {
    history: [],
    counters: emptyCounters(),
    incumbentSamples: [],
    incumbentDimensions: [],
    incumbentGates: undefined,
    baselineSamples: [],
    best: Number.NaN,
    bestId: '',
    baseline: Number.NaN,
    hints: [],
    proposerFailures: 0,
    startedAt,
    iterationsThisRun: 0,
    evaluatedTrees: new Map(),
    deferred: [],
  };
}

/** Appends `row` to the history and advances the counters (O(1)); `best` must already be updated for a kept row. */
export function pushRow(m: SessionMemory, row: IterationRecord, thisRun = true): void {
  m.history.push(row);
  advanceCounters(m.counters, row, m.best);
  if (thisRun && row.status !== 'baseline') m.iterationsThisRun += 1;
}

/** The read-only {@link LoopState} stop policies and advisors see. */
export function loopStateOf(
  m: SessionMemory,
  now: number,
  direction: Direction,
  signal: AbortSignal,
  cost: LoopState['cost'],
): LoopState {
  const c = m.counters;
  return {
    iteration: m.history.length - 1,
    startedAt: m.startedAt,
    now,
    direction,
    baseline: m.baseline,
    best: m.best,
    bestId: m.bestId,
    history: m.history,
    counts: c.counts,
    consecutiveNonImprovements: c.consecutiveNonImprovements,
    consecutiveCrashes: c.consecutiveCrashes,
    consecutiveSameError: c.consecutiveSameError,
    consecutiveNoChange: c.consecutiveNoChange,
    bestTrail: c.bestTrail,
    iterationsThisRun: m.iterationsThisRun,
    ...(m.baselineSpread ? { baselineSpread: m.baselineSpread } : {}),
    incumbentSamples: m.incumbentSamples,
    ...(cost ? { cost } : {}),
    signal,
  };
}

/** The {@link EngineState} a state store writes. */
export function engineStateOf(
  m: SessionMemory,
  status: EnginePhase,
  now: number,
  direction: Direction,
  extra: Partial<EngineState> = {},
): EngineState {
  const last = m.history.at(-1);
  return {
    version: 1,
    status,
    iteration: m.history.length - 1,
    direction,
    baseline: m.baseline,
    best: m.best,
    bestId: m.bestId,
    counts: { ...m.counters.counts },
    consecutiveNonImprovements: m.counters.consecutiveNonImprovements,
    consecutiveCrashes: m.counters.consecutiveCrashes,
    ...(last ? { lastStatus: last.status } : {}),
    ...(last?.label ? { lastLabel: last.label } : {}),
    baselineSamples: m.baselineSamples,
    ...(m.baselineSpread ? { baselineSpread: m.baselineSpread } : {}),
    incumbentSamples: m.incumbentSamples,
    startedAt: new Date(m.startedAt).toISOString(),
    updatedAt: new Date(now).toISOString(),
    ...(m.halted ? { halted: m.halted } : {}),
    ...extra,
  };
}
