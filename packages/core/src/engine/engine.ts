import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError, LoopError } from '../contracts/errors.js';
import type { CandidateData, IterationRecord } from '../contracts/iteration-record.js';
import type { Guard, GuardInput } from '../contracts/guard.js';
import type { Harness } from '../contracts/harness.js';
import { EventHub } from './event-hub.js';
import { strictImprovement, type KeepPolicy } from '../contracts/keep-policy.js';
import type { LoopState } from '../contracts/loop-state.js';
import type { EditPlan, ProposalContext, Proposer } from '../contracts/proposer.js';
import { createMemoryResultsLog, type ResultsLog } from '../contracts/results-log.js';
import type { ScoreResult } from '../contracts/scorer.js';
import { createJsonStateStore, type EnginePhase, type EngineState, type StateStore } from '../contracts/state-store.js';
import { anyOf, neverStop, onAbort, type StopPolicy } from '../contracts/stop-policy.js';
import { systemClock, type Clock, type Direction } from '../contracts/types.js';
import type { PrunedFact } from '../contracts/pruner.js';
import { measure } from './measure.js';
import { startReporting } from './run-reporting.js';
import type { GroupedLoopOptions, LoopOptions } from './options.js';
import { normalizeLoopOptions } from './options-schema.js';
import { engineStateOf, loopStateOf, type SessionMemory } from './session-memory.js';

/**
 * What the pruners of a candidate's first run look at: every row so far and the incumbent's row (see {@link
 * Engine.evaluate}).
 */
export interface PruneHistory {
  readonly history: readonly IterationRecord[];
  readonly incumbent: IterationRecord | undefined;
}

/** One evaluation's outcome (see {@link Engine.evaluate}). */
export interface Evaluation {
  readonly result: ScoreResult;
  readonly durationMs: number;
  readonly data: CandidateData | undefined;
  /** Set when a pruner stopped the run early. */
  readonly pruned?: PrunedFact;
}

/** The resolved options and shared helpers of one `createLoop` (internal to the engine). */
export interface Engine {
  /** The options in the grouped shape (deprecated flat names moved into their groups). */
  readonly options: GroupedLoopOptions;
  readonly hub: EventHub;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly results: ResultsLog;
  readonly store: StateStore | undefined;
  readonly keepPolicy: KeepPolicy;
  readonly stopPolicy: StopPolicy;
  readonly guards: readonly Guard[];
  readonly direction: Direction;
  readonly maxRepairs: number;
  readonly maxProposerFailures: number;
  readonly baselineRepeats: number;
  readonly statusNames: { readonly restoreFailed: string; readonly harnessTampered: string };
  /**
   * Runs `harness` once and scores it; `data` merges the run record's and the score's, plus the
   * run's intermediate `reports`. With `history` (a candidate's first run) the loop's pruners watch
   * the reports; `pruned` is set when one stopped the run. `runSignal` replaces the loop's signal
   * for this run (a candidate an async pool may abandon: `Slot.signal`).
   */
  evaluate(
    iteration: number,
    repeat: number,
    harness?: Harness,
    history?: PruneHistory,
    runSignal?: AbortSignal,
  ): Promise<Evaluation>;
  /** The configured proposer. @throws {ConfigError} `CONFIG_INVALID` (`engine.proposer`) when there is none. */
  proposer(): Proposer;
  /** @throws {LoopError} `HARNESS_TAMPERED` when `harness`'s fingerprint is no longer `expected`. */
  checkFingerprint(expected: string | undefined, harness?: Harness): Promise<void>;
  /** Appends one line to the decisions log, when there is one. */
  logDecision(line: Record<string, unknown>): Promise<void>;
  /** Writes the state store (the last write of a step). */
  writeState(m: SessionMemory, phase: EnginePhase, extra?: Partial<EngineState>): Promise<void>;
  /** The state stop policies and advisors see. */
  loopState(m: SessionMemory): LoopState;
  /** What the proposer sees. */
  context(m: SessionMemory, iteration: number, attempt: number, extra?: Partial<ProposalContext>): ProposalContext;
  /** What guards see. */
  guardInput(m: SessionMemory, iteration: number, plan: EditPlan | undefined): GuardInput;
}

/**
 * Validates `options` with `loopOptionsSchema` (after moving deprecated flat names into their
 * groups, {@link normalizeLoopOptions}) and resolves their defaults.
 *
 * @throws {ConfigError} `CONFIG_INVALID` naming the field (`engine.<field>`).
 */
export function createEngine(input: LoopOptions): Engine {
  const options = normalizeLoopOptions(input);
  const clock = options.clock ?? systemClock;
  const signal = options.signal ?? new AbortController().signal;
  const direction = options.scorer.direction;
  const fixedSeed = options.run?.seed ?? 0;
  const seedForRepeat = options.run?.seedForRepeat ?? (() => fixedSeed);
  const store =
    options.stateStore ?? (options.files?.statePath ? createJsonStateStore(options.files.statePath) : undefined);
  const engine: Engine = {
    options,
    hub: new EventHub(),
    clock,
    signal,
    results: options.results ?? createMemoryResultsLog(),
    store,
    keepPolicy: options.keep?.policy ?? strictImprovement(),
    stopPolicy: anyOf(onAbort(signal), options.stop ?? neverStop()),
    guards: options.keep?.guards ?? [],
    direction,
    maxRepairs: options.recovery?.maxRepairAttempts ?? 0,
    maxProposerFailures: options.recovery?.maxProposerFailures ?? 5,
    baselineRepeats: options.run?.baselineRepeats ?? 1,
    statusNames: {
      restoreFailed: options.statusNames?.restoreFailed ?? 'restore-failed',
      harnessTampered: options.statusNames?.harnessTampered ?? 'harness-tampered',
    },
    async evaluate(iteration, repeat, harness = options.harness, history, runSignal) {
      const prune =
        options.prune && history && repeat === 0 && iteration > 0 ? { options: options.prune, ...history } : undefined;
      const reporting = startReporting({
        iteration,
        repeat,
        loopSignal: runSignal ?? signal,
        hub: engine.hub,
        direction,
        ...(prune ? { prune } : {}),
      });
      try {
        const context = {
          iteration,
          signal: reporting.signal,
          seed: seedForRepeat(repeat),
          repeat,
          report: reporting.report,
        };
        const measured = await measure(harness, options.scorer, context, clock);
        const reports = reporting.reports.length > 0 ? { reports: [...reporting.reports] } : {};
        const pruned = reporting.pruned ? { pruned: reporting.pruned } : {};
        const data =
          measured.data || reporting.reports.length > 0 || reporting.pruned
            ? { ...measured.data, ...reports, ...pruned }
            : undefined;
        return { result: measured.result, durationMs: measured.durationMs, data, ...pruned };
      } finally {
        reporting.dispose();
      }
    },
    proposer() {
      if (options.proposer) return options.proposer;
      throw new ConfigError('engine', [
        {
          path: 'proposer',
          message: 'step() and run() need a proposer; a host that edits itself calls ask() and tell()',
        },
      ]);
    },
    async checkFingerprint(expected, harness = options.harness) {
      if (expected === undefined || !harness.fingerprint) return;
      const now = await harness.fingerprint();
      if (now !== expected) {
        throw new LoopError(
          'HARNESS_TAMPERED',
          `[loop] [engine] the harness ${harness.name} changed during the run ` +
            `(fingerprint ${expected.slice(0, 12)} → ${now.slice(0, 12)}); the ` +
            `evaluation is ground truth and must not change`,
          { details: { expected, actual: now } },
        );
      }
    },
    async logDecision(line) {
      const path = options.files?.decisionsLogPath;
      if (!path) return;
      await mkdir(dirname(path), { recursive: true });
      await appendFile(path, `${JSON.stringify({ ...line, at: new Date(clock.now()).toISOString() })}\n`);
    },
    async writeState(m, phase, extra = {}) {
      if (!store) return;
      await store.write(engineStateOf(m, phase, clock.now(), direction, extra));
    },
    loopState: (m) => loopStateOf(m, clock.now(), direction, signal, options.cost?.()),
    context: (m, iteration, attempt, extra = {}) => ({
      iteration,
      attempt,
      history: m.history,
      baseline: m.baseline,
      best: m.best,
      direction,
      hints: m.hints,
      ...(options.artifact ? { artifact: options.artifact } : {}),
      signal,
      ...extra,
    }),
    guardInput: (m, iteration, plan) => ({
      iteration,
      history: m.history,
      best: m.best,
      direction,
      ...(plan ? { plan } : {}),
      signal,
    }),
  };
  return engine;
}
