import { appendFile, mkdir } from 'node:fs/promises';
import pLimit from 'p-limit';
import { dirname } from 'node:path';
import { compareSnapshots, type Artifact } from './artifact.js';
import type { Advisor } from './advisor.js';
import { ConfigError, LoopError, isLoopError, parseOptions } from './errors.js';
import type { LoopEvent, LoopEventOf, LoopEventType } from './events.js';
import type { Harness } from './harness.js';
import { EventHub } from './internal/event-hub.js';
import { deriveCounters, keptChanges } from './internal/history.js';
import type { IterationRecord, IterationStatus } from './iteration-record.js';
import { strictImprovement, type KeepDecision, type KeepPolicy } from './keep-policy.js';
import { acquireLock, type WorkspaceLock } from './lock.js';
import { parallelOptionsSchema, type ParallelOptions } from './parallel.js';
import type { LoopState } from './loop-state.js';
import type { Proposal, ProposalContext, Proposer } from './proposer.js';
import { createMemoryResultsLog, type ResultsLog } from './results-log.js';
import type { Checkpoint, RollbackStrategy } from './rollback-strategy.js';
import { isBetter, type Scorer, type ScoreResult } from './scorer.js';
import type { SeedOnlyDetector } from './seed-only.js';
import { readJson, writeJsonAtomic } from './state-file.js';
import { summarizeSamples, type SampleSummary } from './statistics.js';
import { anyOf, neverStop, onAbort, type StopDecision, type StopPolicy } from './stop-policy.js';
import type { LoopSummary } from './summary.js';
import { systemClock, type Clock } from './types.js';
import type { WorkingCopy } from './working-copy.js';

/** Options of {@link createLoop}. */
export interface LoopOptions {
  /** Produces one edit per iteration. */
  proposer: Proposer;
  /** Runs the fixed evaluation. */
  harness: Harness;
  /** Turns a run into a score; its `direction` is the loop's. */
  scorer: Scorer;
  /** Undoes discarded changes. */
  rollback: RollbackStrategy;
  /** The mutable surface; when given, a change outside `artifact.mutable` is `rejected` unevaluated. */
  artifact?: Artifact;
  /** The keep rule. @default strictImprovement() (equal scores revert) */
  keepPolicy?: KeepPolicy;
  /** When to stop; the abort signal always stops too. @default neverStop() */
  stop?: StopPolicy;
  /** Where rows go; rows found at start mean resume (no new baseline). @default an in-memory log */
  results?: ResultsLog;
  /** Path of state.json, written atomically as the last write of every iteration. @default none */
  statePath?: string;
  /** Path of the file to lock (a `<path>.lock` directory is the lock) so two loops never share a workspace. @default none */
  lockPath?: string;
  /** Advisors whose hints reach the next proposal (seed 001's circuit breaker). @default [] */
  advisors?: Advisor[];
  /** Repair attempts for a crashed candidate within the same iteration (seed 003: at most 2). @default 0 */
  maxRepairAttempts?: number;
  /** Consecutive proposer failures (each a crash row) before the loop stops with `proposer-failing`. @default 5 */
  maxProposerFailures?: number;
  /** The clock for durations and wall-clock budgets. @default systemClock */
  clock?: Clock;
  /** Aborting stops the loop after restoring the last kept state (Ctrl-C). */
  signal?: AbortSignal;
  /**
   * How many times the baseline is evaluated to measure the noise floor. Each sample is recorded
   * (the `baseline` event, state.json, the decisions log); the baseline score is their mean and the
   * `baseline` event carries their spread (sd and MAD). A crash in any repeat is `BASELINE_FAILED`.
   * @default 1
   */
  baselineRepeats?: number;
  /**
   * The seed passed to the harness (`RunContext.seed`, the command harness's `LOOP_SEED`) for
   * repeat `repeat` (0 = a state's first run, 1.. = re-runs). Vary it to measure seed noise, for
   * example `(r) => 1000 + r`. @default () => seed
   */
  seedForRepeat?: (repeat: number) => number;
  /** The fixed seed used when `seedForRepeat` is not given. @default 0 */
  seed?: number;
  /**
   * A JSONL file that gets one line per decision: the baseline's samples and spread, then per
   * evaluated candidate its status, samples, the decision's reason and evidence, and `seedOnly`.
   * results.tsv keeps its columns. Appended and flushed per line. @default none
   */
  decisionsLogPath?: string;
  /**
   * Detects proposals that only change a random seed (see {@link SeedOnlyDetector},
   * `createJsonSeedOnlyDetector`); they are flagged ` (seed-only change)` in the row description
   * and `seedOnly: true` in the event and the keep input. @default none
   */
  seedOnlyDetector?: SeedOnlyDetector;
  /**
   * Parallel candidates: each step proposes and evaluates K candidates at once, each in its own
   * working copy (see {@link ParallelOptions}), and keeps the best one that passes the keep policy
   * against the incumbent. Every candidate is a results row with its own iteration number; the
   * others are reverted (a passing one with ` (not the best of the batch)`). The main workspace is
   * touched only to adopt the winner. The proposer must edit `context.artifact` (the copy), not a
   * captured artifact. Stop policies are checked between batches, so a batch may run past
   * `maxIterations` by up to K − 1 rows. Not combinable with `maxRepairAttempts` or
   * `seedOnlyDetector` (`CONFIG_INVALID`). @default none: one candidate at a time, in place
   */
  parallel?: ParallelOptions;
}

/** A configured loop. */
export interface Loop {
  /**
   * Runs until a stop policy fires or the signal aborts, then restores the best kept state and
   * returns the summary. Resumes when the results log already has rows.
   *
   * @throws {LoopError} `BASELINE_FAILED` (the baseline crashed), `LOCK_HELD`, `RESTORE_FAILED`
   *   (the workspace could not be restored, or a parallel batch's winner could not be adopted and
   *   verified: the loop halts), `STATE_WRITE_FAILED`,
   *   `HARNESS_TAMPERED`, `RESULTS_CORRUPT`, and the rollback's own codes.
   */
  readonly run: () => Promise<LoopSummary>;
  /** Subscribes to one event type; returns the unsubscribe function. */
  readonly on: <T extends LoopEventType>(type: T, handler: (event: LoopEventOf<T>) => void) => () => void;
  /** Iterates events from now until the loop stops. */
  readonly events: () => AsyncIterableIterator<LoopEvent>;
}

interface Mutable {
  history: IterationRecord[];
  /** The incumbent's samples and per-instance scores (baseline repeats, then the last kept candidate's). */
  incumbentSamples: number[];
  incumbentDimensions: (Readonly<Record<string, number>> | undefined)[];
  baselineSamples: number[];
  baselineSpread?: SampleSummary;
  best: number;
  bestId: string;
  baseline: number;
  hints: string[];
  proposerFailures: number;
  startedAt: number;
  iterationsThisRun: number;
}

/**
 * Creates a keep/revert loop. One iteration: checkpoint → proposer edits → read-only check →
 * rollback.commit → harness (fingerprint re-checked first) → scorer → keep policy → results row
 * appended and flushed → keep or revert (verified) → state.json (last write) → events → stop policies.
 *
 * The options are contracts, not user config, and are not validated here: presets such as
 * `@loop/auto-iterate` validate user config with zod and name the invalid field. The exceptions are
 * `baselineRepeats` and `parallel` (zod, {@link ParallelOptions}).
 *
 * @throws {ConfigError} `CONFIG_INVALID` for an invalid `baselineRepeats` or `parallel`, or
 *   `parallel` combined with `maxRepairAttempts` or `seedOnlyDetector`.
 *
 * @example
 * const loop = createLoop({ proposer, harness, scorer, rollback, stop: anyOf(maxIterations(20), plateau(5)) });
 * loop.on('kept', (e) => console.log('kept', e.record.description));
 * const summary = await loop.run();
 */
export function createLoop(options: LoopOptions): Loop {
  const hub = new EventHub();
  const clock = options.clock ?? systemClock;
  const signal = options.signal ?? new AbortController().signal;
  const results = options.results ?? createMemoryResultsLog();
  const keepPolicy = options.keepPolicy ?? strictImprovement();
  const stopPolicy = anyOf(onAbort(signal), options.stop ?? neverStop());
  const direction = options.scorer.direction;
  const maxRepairs = options.maxRepairAttempts ?? 0;
  const maxProposerFailures = options.maxProposerFailures ?? 5;
  const { proposer, harness, scorer, rollback, artifact } = options;
  const baselineRepeats = options.baselineRepeats ?? 1;
  if (!Number.isInteger(baselineRepeats) || baselineRepeats < 1) {
    throw new ConfigError('engine', [{ path: 'baselineRepeats', message: `must be a whole number >= 1, got ${baselineRepeats}` }]);
  }
  const batch = options.parallel === undefined ? undefined : parseOptions(parallelOptionsSchema, options.parallel, 'engine.parallel');
  if (batch && (maxRepairs > 0 || options.seedOnlyDetector)) {
    const path = maxRepairs > 0 ? 'maxRepairAttempts' : 'seedOnlyDetector';
    throw new ConfigError('engine', [{ path, message: `is not supported with parallel candidates yet; remove it or remove parallel` }]);
  }
  const fixedSeed = options.seed ?? 0;
  const seedForRepeat = options.seedForRepeat ?? (() => fixedSeed);
  const logDecision = async (line: Record<string, unknown>) => {
    if (!options.decisionsLogPath) return;
    await mkdir(dirname(options.decisionsLogPath), { recursive: true });
    await appendFile(options.decisionsLogPath, `${JSON.stringify({ ...line, at: new Date(clock.now()).toISOString() })}\n`);
  };
  let running = false;

  const state = (m: Mutable): LoopState => {
    const c = deriveCounters(m.history);
    return {
      iteration: m.history.length - 1,
      startedAt: m.startedAt,
      now: clock.now(),
      direction,
      baseline: m.baseline,
      best: m.best,
      bestId: m.bestId,
      history: m.history,
      counts: c.counts,
      consecutiveNonImprovements: c.consecutiveNonImprovements,
      consecutiveCrashes: c.consecutiveCrashes,
      iterationsThisRun: m.iterationsThisRun,
      ...(m.baselineSpread ? { baselineSpread: m.baselineSpread } : {}),
      incumbentSamples: m.incumbentSamples,
      signal,
    };
  };

  const writeState = async (m: Mutable, status: 'running' | 'stopped' | 'failed', extra: Record<string, unknown> = {}) => {
    if (!options.statePath) return;
    const s = state(m);
    await writeJsonAtomic(options.statePath, {
      version: 1,
      status,
      iteration: s.iteration,
      direction,
      baseline: s.baseline,
      best: s.best,
      bestId: s.bestId,
      counts: s.counts,
      consecutiveNonImprovements: s.consecutiveNonImprovements,
      consecutiveCrashes: s.consecutiveCrashes,
      lastStatus: m.history.at(-1)?.status,
      baselineSamples: m.baselineSamples,
      ...(m.baselineSpread ? { baselineSpread: m.baselineSpread } : {}),
      incumbentSamples: m.incumbentSamples,
      startedAt: new Date(m.startedAt).toISOString(),
      updatedAt: new Date(clock.now()).toISOString(),
      ...extra,
    });
  };

  const evaluate = async (iteration: number, repeat = 0, h: Harness = harness): Promise<{ result: ScoreResult; durationMs: number }> => {
    const started = clock.now();
    const run = await h.run({ iteration, signal, seed: seedForRepeat(repeat), repeat });
    const result = await scorer.score(run);
    return { result, durationMs: clock.now() - started };
  };

  const runBaseline = async (m: Mutable, fingerprint: string | undefined): Promise<void> => {
    hub.emit({ type: 'iteration-started', iteration: 0, attempt: 0 });
    const cp = await rollback.checkpoint(0);
    const id = (await rollback.currentId?.()) ?? cp.id;
    const samples: number[] = [];
    const dimensions: (Readonly<Record<string, number>> | undefined)[] = [];
    let durationMs = 0;
    for (let repeat = 0; repeat < baselineRepeats; repeat++) {
      await checkFingerprint(fingerprint);
      const run = await evaluate(0, repeat);
      const { result } = run;
      durationMs += run.durationMs;
      if (signal.aborted) throw new LoopError('BASELINE_FAILED', '[loop] [engine] aborted during the baseline run; nothing was recorded', { details: { aborted: true } });
      if (!result.ok) {
        const which = baselineRepeats > 1 ? ` (repeat ${repeat + 1} of ${baselineRepeats})` : '';
        throw new LoopError('BASELINE_FAILED', `[loop] [engine] the baseline run${which} crashed (${result.message}); fix the harness before starting the loop. Last log lines:\n${result.logTail ?? ''}`, { details: { reason: result.reason, logTail: result.logTail, repeat } });
      }
      samples.push(result.value);
      dimensions.push(result.dimensions);
    }
    const spread = summarizeSamples(samples);
    const record: IterationRecord = { iteration: 0, candidateId: id, score: spread.mean, status: 'baseline', description: 'baseline' };
    await results.append(record);
    m.history.push(record);
    m.baseline = m.best = spread.mean;
    m.bestId = id;
    m.baselineSamples = samples;
    m.baselineSpread = spread;
    m.incumbentSamples = [...samples];
    m.incumbentDimensions = dimensions;
    await logDecision({ iteration: 0, candidateId: id, status: 'baseline', score: spread.mean, samples, spread });
    await writeState(m, 'running');
    hub.emit({ type: 'baseline', record, durationMs, samples, spread });
  };

  const checkFingerprint = async (expected: string | undefined, h: Harness = harness) => {
    if (expected === undefined || !h.fingerprint) return;
    const now = await h.fingerprint();
    if (now !== expected) {
      throw new LoopError('HARNESS_TAMPERED', `[loop] [engine] the harness ${h.name} changed during the run (fingerprint ${expected.slice(0, 12)} → ${now.slice(0, 12)}); the evaluation is ground truth and must not change`, { details: { expected, actual: now } });
    }
  };

  const context = (m: Mutable, iteration: number, attempt: number, extra: Partial<ProposalContext> = {}): ProposalContext => ({
    iteration,
    attempt,
    history: m.history,
    baseline: m.baseline,
    best: m.best,
    direction,
    hints: m.hints,
    ...(artifact ? { artifact } : {}),
    signal,
    ...extra,
  });

  /** Runs one iteration; returns false when the loop must stop because of an abort. */
  const iterate = async (m: Mutable, fingerprint: string | undefined): Promise<boolean> => {
    const iteration = m.history.length;
    const started = clock.now();
    hub.emit({ type: 'iteration-started', iteration, attempt: 0 });
    const cp = await rollback.checkpoint(iteration);
    let candidateId = '';
    let proposal: Proposal;
    let decision: KeepDecision | undefined;
    let status: IterationStatus;
    let score: number | null = null;
    let description: string;
    let logTail = '';
    let seedOnly = false;
    let samples: number[] = [];
    let sampleDimensions: (Readonly<Record<string, number>> | undefined)[] = [];

    const revert = () => rollback.revert(cp, { iteration, ...(candidateId ? { candidateId } : {}) });
    const finish = async (record: IterationRecord, afterAppend: () => unknown) => {
      await results.append(record); // durable before any rollback
      await afterAppend();
      m.history.push(record);
      m.iterationsThisRun += 1;
    };

    const before = artifact ? await artifact.inspect() : undefined;
    const captured = options.seedOnlyDetector?.capture ? await options.seedOnlyDetector.capture() : undefined;
    try {
      proposal = await proposer.propose(context(m, iteration, 0));
      m.proposerFailures = 0;
    } catch (error) {
      if (signal.aborted) {
        await revert();
        return false;
      }
      m.proposerFailures += 1;
      const message = isLoopError(error) ? error.message : (error as Error)?.message ?? String(error);
      const record: IterationRecord = { iteration, candidateId: '', score: null, status: 'crash', description: `proposer failed: ${message}` };
      await finish(record, revert);
      hub.emit({ type: 'crash', record, logTail: '', willRepair: false, durationMs: clock.now() - started });
      return true;
    }
    return await evaluateProposal();

    async function evaluateProposal(): Promise<boolean> {
      let attempt = 0;
      try {
        for (;;) {
          if (signal.aborted) {
            await revert();
            return false;
          }
          const changes = artifact ? await findChanges() : undefined;
          const violations = changes?.violations ?? [];
          candidateId = (await rollback.commit?.(cp, { iteration, attempt, description: proposal.description, ...(proposal.changedFiles ? { changedFiles: proposal.changedFiles } : {}) })) ?? '';
          if (violations.length > 0) {
            status = 'rejected';
            description = `${proposal.description} (changed read-only ${violations.join(', ')})`;
            break;
          }
          if (changes && changes.changed.length === 0) {
            status = 'reverted';
            description = `${proposal.description} (no change: not evaluated)`;
            break;
          }
          seedOnly = changes !== undefined && options.seedOnlyDetector !== undefined
            ? await options.seedOnlyDetector.isSeedOnlyChange({ ...changes, description: proposal.description }, captured)
            : false;
          await checkFingerprint(fingerprint);
          const { result } = await evaluate(iteration, 0);
          if (signal.aborted) {
            await revert();
            return false;
          }
          if (result.ok) {
            samples = [result.value];
            sampleDimensions = [result.dimensions];
            let repeat = 0;
            const sample = async (): Promise<number | undefined> => {
              if (signal.aborted) return undefined;
              repeat += 1;
              await checkFingerprint(fingerprint);
              const again = (await evaluate(iteration, repeat)).result;
              if (signal.aborted || !again.ok) return undefined;
              samples.push(again.value);
              sampleDimensions.push(again.dimensions);
              return again.value;
            };
            decision = await keepPolicy.decide({
              candidate: result.value,
              incumbent: m.best,
              direction,
              candidateSamples: samples,
              incumbentSamples: m.incumbentSamples,
              candidateDimensions: sampleDimensions,
              incumbentDimensions: m.incumbentDimensions,
              sample,
              seedOnly,
            });
            if (signal.aborted) {
              await revert();
              return false;
            }
            score = samples.length > 1 ? summarizeSamples(samples).mean : result.value;
            status = decision.keep ? 'kept' : 'reverted';
            description = seedOnly ? `${proposal.description} (seed-only change)` : proposal.description;
            break;
          }
          logTail = result.logTail ?? '';
          const canRepair = attempt < maxRepairs && proposer.repair !== undefined;
          if (canRepair) {
            const record: IterationRecord = { iteration, candidateId, score: null, status: 'crash', description: `${proposal.description} (${result.message})` };
            hub.emit({ type: 'crash', record, logTail, willRepair: true, durationMs: clock.now() - started });
            attempt += 1;
            hub.emit({ type: 'iteration-started', iteration, attempt });
            const repaired = await proposer.repair!(context(m, iteration, attempt, { crash: { message: result.message, logTail } }));
            if (repaired) {
              proposal = { ...repaired, description: `${proposal.description}; repair ${attempt}: ${repaired.description}` };
              continue;
            }
          }
          status = 'crash';
          description = `${proposal.description} (crash: ${result.message})`;
          break;
        }
      } catch (error) {
        // Anything unexpected (a harness that cannot start, a throwing keep policy, a tampered
        // harness) leaves the workspace at the last kept state before the error propagates.
        if (!isLoopError(error, 'RESTORE_FAILED')) await revert();
        throw error;
      }
      const record: IterationRecord = { iteration, candidateId, score, status, description };
      const durationMs = () => clock.now() - started;
      if (status === 'kept' || (status === 'reverted' && decision)) {
        await logDecision({ iteration, candidateId, status, score, description, samples, seedOnly, policy: keepPolicy.name, reason: decision?.reason, ...(decision?.evidence ? { evidence: decision.evidence } : {}) });
      }
      if (status === 'kept') {
        const previousBest = m.best;
        await finish(record, async () => {
          m.bestId = await rollback.keep(cp, candidateId || undefined);
          m.best = score as number;
          m.incumbentSamples = [...samples];
          m.incumbentDimensions = [...sampleDimensions];
        });
        hub.emit({ type: 'kept', record, decision: decision!, previousBest, durationMs: durationMs(), samples, seedOnly });
      } else {
        await finish(record, revert);
        if (status === 'crash') hub.emit({ type: 'crash', record, logTail, willRepair: false, durationMs: durationMs() });
        else hub.emit({ type: 'reverted', record, ...(decision ? { decision } : {}), durationMs: durationMs(), samples, seedOnly });
      }
      return true;
    }

    async function findChanges() {
      // Compare with the kept state as it was before the edit (repairs included).
      return compareSnapshots(artifact!, before ?? {}, await artifact!.inspect());
    }
  };

  /** What one candidate of a parallel batch came to, before the batch's winner is chosen. */
  interface CandidateOutcome {
    iteration: number;
    k: number;
    copy: WorkingCopy;
    status: IterationStatus;
    score: number | null;
    description: string;
    decision?: KeepDecision;
    samples: number[];
    dimensions: (Readonly<Record<string, number>> | undefined)[];
    logTail: string;
    proposerFailed: boolean;
    aborted: boolean;
    started: number;
  }

  /** Fresh incumbent samples for one batch (`parallel.remeasureIncumbent`), measured in the main workspace. */
  interface IncumbentRemeasure {
    samples: number[];
    dimensions: (Readonly<Record<string, number>> | undefined)[];
    crashed: number;
    error?: unknown;
  }

  const remeasureIncumbent = async (m: Mutable, fingerprint: string | undefined, repeats: number): Promise<IncumbentRemeasure> => {
    const out: IncumbentRemeasure = { samples: [], dimensions: [], crashed: 0 };
    const iteration = deriveCounters(m.history).incumbent.iteration;
    try {
      for (let repeat = 0; repeat < repeats && !signal.aborted; repeat++) {
        await checkFingerprint(fingerprint);
        const { result } = await evaluate(iteration, repeat);
        if (result.ok) {
          out.samples.push(result.value);
          out.dimensions.push(result.dimensions);
        } else out.crashed += 1;
      }
    } catch (error) {
      out.error = error;
    }
    return out;
  };

  /** Proposes and evaluates one candidate of a batch in its own working copy; never touches the main workspace. */
  const runCandidate = async (m: Mutable, iteration: number, k: number, copies: WorkingCopy[], incumbent: Promise<IncumbentRemeasure> | undefined): Promise<CandidateOutcome> => {
    const started = clock.now();
    hub.emit({ type: 'iteration-started', iteration, attempt: 0 });
    const copy = await batch!.workingCopies.create(iteration, k);
    copies.push(copy);
    const outcome: CandidateOutcome = { iteration, k, copy, status: 'reverted', score: null, description: '', samples: [], dimensions: [], logTail: '', proposerFailed: false, aborted: false, started };
    const copyFingerprint = await copy.harness.fingerprint?.();
    const before = await copy.artifact.inspect();
    let proposal: Proposal;
    try {
      proposal = await proposer.propose(context(m, iteration, 0, { artifact: copy.artifact, workingCopy: copy }));
    } catch (error) {
      const message = isLoopError(error) ? error.message : (error as Error)?.message ?? String(error);
      return { ...outcome, aborted: signal.aborted, status: 'crash', description: `proposer failed: ${message}`, proposerFailed: true };
    }
    const changes = compareSnapshots(copy.artifact, before, await copy.artifact.inspect());
    if (changes.violations.length > 0) {
      return { ...outcome, status: 'rejected', description: `${proposal.description} (changed read-only ${changes.violations.join(', ')})` };
    }
    if (changes.changed.length === 0) {
      return { ...outcome, status: 'reverted', description: `${proposal.description} (no change: not evaluated)` };
    }
    await checkFingerprint(copyFingerprint, copy.harness);
    const { result } = await evaluate(iteration, 0, copy.harness);
    if (signal.aborted) return { ...outcome, aborted: true };
    if (!result.ok) {
      return { ...outcome, status: 'crash', description: `${proposal.description} (crash: ${result.message})`, logTail: result.logTail ?? '' };
    }
    const samples = [result.value];
    const dimensions = [result.dimensions];
    let repeat = 0;
    const sample = async (): Promise<number | undefined> => {
      if (signal.aborted) return undefined;
      repeat += 1;
      await checkFingerprint(copyFingerprint, copy.harness);
      const again = (await evaluate(iteration, repeat, copy.harness)).result;
      if (signal.aborted || !again.ok) return undefined;
      samples.push(again.value);
      dimensions.push(again.dimensions);
      return again.value;
    };
    const fresh = incumbent ? await incumbent : undefined;
    const useFresh = fresh !== undefined && fresh.samples.length > 0;
    const decision = await keepPolicy.decide({
      candidate: result.value,
      incumbent: useFresh ? summarizeSamples(fresh.samples).mean : m.best,
      direction,
      candidateSamples: samples,
      incumbentSamples: useFresh ? fresh.samples : m.incumbentSamples,
      candidateDimensions: dimensions,
      incumbentDimensions: useFresh ? fresh.dimensions : m.incumbentDimensions,
      sample,
      seedOnly: false,
    });
    if (signal.aborted) return { ...outcome, aborted: true };
    const score = samples.length > 1 ? summarizeSamples(samples).mean : result.value;
    return { ...outcome, status: decision.keep ? 'kept' : 'reverted', score, description: proposal.description, decision, samples, dimensions };
  };

  /**
   * One parallel batch: K candidates proposed and evaluated concurrently in working copies, the
   * best passing one adopted into the main workspace, one row per candidate. Returns false when
   * the loop must stop because of an abort (then no row is written and the main workspace is
   * untouched).
   */
  const iterateBatch = async (m: Mutable, fingerprint: string | undefined): Promise<boolean> => {
    const b = batch!;
    const first = m.history.length;
    const limit = pLimit(b.concurrency ?? b.candidates);
    const copies: WorkingCopy[] = [];
    const disposeAll = async () => {
      for (const copy of copies) await copy.dispose?.();
    };
    try {
      await checkFingerprint(fingerprint);
      const incumbent = b.remeasureIncumbent > 0 ? remeasureIncumbent(m, fingerprint, b.remeasureIncumbent) : undefined;
      const settled = await Promise.allSettled(Array.from({ length: b.candidates }, (_, k) => limit(() => runCandidate(m, first + k, k, copies, incumbent))));
      const fresh = incumbent ? await incumbent : undefined;
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      if (fresh?.error !== undefined) throw fresh.error;
      const outcomes = settled.map((s) => (s as PromiseFulfilledResult<CandidateOutcome>).value).sort((a, z) => a.k - z.k);
      if (signal.aborted || outcomes.some((o) => o.aborted)) return false;

      let winner: CandidateOutcome | undefined;
      for (const o of outcomes) {
        if (o.status === 'kept' && (!winner || isBetter(o.score as number, winner.score as number, direction))) winner = o;
      }
      for (const o of outcomes) {
        if (o.status !== 'kept' || o === winner) continue;
        o.status = 'reverted';
        o.decision = { ...o.decision!, keep: false, reason: `not the best of the batch: passed (${o.decision!.reason}) but iteration ${winner!.iteration} scored ${winner!.score}` };
        o.description = `${o.description} (not the best of the batch)`;
      }

      let cp: Checkpoint | undefined;
      let candidateId = '';
      if (winner) {
        cp = await rollback.checkpoint(winner.iteration);
        try {
          const changedFiles = await b.workingCopies.adopt(winner.copy);
          if (artifact) {
            const left = compareSnapshots(artifact, await artifact.inspect(), await winner.copy.artifact.inspect()).changed;
            if (left.length > 0) {
              throw new LoopError('RESTORE_FAILED', `[loop] [engine] adopting ${winner.copy.name} with ${b.workingCopies.name} left ${left.join(', ')} different from the copy; the main workspace was rolled back to the last kept state`, { details: { copy: winner.copy.name, paths: left } });
            }
          }
          candidateId = (await rollback.commit?.(cp, { iteration: winner.iteration, attempt: 0, description: winner.description, changedFiles })) ?? '';
        } catch (error) {
          await rollback.revert(cp, { iteration: winner.iteration, ...(candidateId ? { candidateId } : {}) });
          throw error;
        }
      }

      const records = outcomes.map((o): IterationRecord => ({ iteration: o.iteration, candidateId: o === winner ? candidateId : '', score: o.score, status: o.status, description: o.description }));
      for (const [i, o] of outcomes.entries()) {
        await results.append(records[i]!); // durable before the keep
        if (o.decision) {
          await logDecision({ iteration: o.iteration, candidateId: records[i]!.candidateId, status: o.status, score: o.score, description: o.description, samples: o.samples, seedOnly: false, policy: keepPolicy.name, reason: o.decision.reason, ...(o.decision.evidence ? { evidence: o.decision.evidence } : {}), batch: { first, k: o.k, candidates: b.candidates }, ...(fresh ? { incumbentRemeasure: { samples: fresh.samples, crashed: fresh.crashed } } : {}) });
        }
      }
      const previousBest = m.best;
      if (winner) {
        m.bestId = await rollback.keep(cp!, candidateId || undefined);
        m.best = winner.score as number;
        m.incumbentSamples = [...winner.samples];
        m.incumbentDimensions = [...winner.dimensions];
      }
      for (const [i, o] of outcomes.entries()) {
        const record = records[i]!;
        m.history.push(record);
        m.iterationsThisRun += 1;
        m.proposerFailures = o.proposerFailed ? m.proposerFailures + 1 : 0;
        const durationMs = clock.now() - o.started;
        if (o.status === 'kept') hub.emit({ type: 'kept', record, decision: o.decision!, previousBest, durationMs, samples: o.samples, seedOnly: false });
        else if (o.status === 'crash') hub.emit({ type: 'crash', record, logTail: o.logTail, willRepair: false, durationMs });
        else hub.emit({ type: 'reverted', record, ...(o.decision ? { decision: o.decision } : {}), durationMs, samples: o.samples, seedOnly: false });
      }
      return true;
    } finally {
      await disposeAll();
    }
  };

  /** On resume: the incumbent's samples come from state.json when it names the same incumbent, else the one recorded score. */
  const restoreSamples = async (m: Mutable) => {
    m.incumbentSamples = [m.best];
    m.incumbentDimensions = [undefined];
    if (!options.statePath) return;
    const saved = (await readJson(options.statePath).catch(() => undefined)) as { bestId?: unknown; incumbentSamples?: unknown; baselineSamples?: unknown } | undefined;
    const numbers = (v: unknown): number[] | undefined => (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (v as number[]) : undefined);
    const baselineSamples = numbers(saved?.baselineSamples);
    if (baselineSamples) {
      m.baselineSamples = baselineSamples;
      m.baselineSpread = summarizeSamples(baselineSamples);
    }
    const incumbentSamples = numbers(saved?.incumbentSamples);
    if (saved?.bestId === m.bestId && incumbentSamples) {
      m.incumbentSamples = incumbentSamples;
      m.incumbentDimensions = incumbentSamples.map(() => undefined);
    }
  };

  /**
   * state.json is written after each row, so it never records more iterations than the results
   * log holds, and it names the same baseline. A mismatch means the log was deleted, truncated or
   * edited: resuming would silently re-baseline or misnumber iterations, so refuse.
   */
  const checkAgainstState = async (rows: readonly IterationRecord[]) => {
    if (!options.statePath) return;
    const previous = (await readJson(options.statePath)) as { iteration?: unknown; baseline?: unknown } | undefined;
    if (!previous || typeof previous.iteration !== 'number') return;
    const where = results.path ?? 'the results log';
    const fail = (why: string) => {
      throw new LoopError('RESUME_MISMATCH', `[loop] [engine] ${options.statePath} records iteration ${previous.iteration} but ${why}; restore ${where}, or move ${options.statePath} and ${where} away to start a new run`, { details: { statePath: options.statePath, resultsPath: results.path } });
    };
    if (rows.length === 0) fail(`${where} is missing or empty`);
    if (previous.iteration > rows.length - 1) fail(`${where} holds only ${rows.length - 1} iterations`);
    if (typeof previous.baseline === 'number' && rows[0]?.score !== previous.baseline) fail(`the first row of ${where} (${rows[0]?.score}) is not the recorded baseline ${previous.baseline}`);
  };

  const run = async (): Promise<LoopSummary> => {
    if (running) throw new Error('[loop] [engine] run() is already in progress');
    running = true;
    let lock: WorkspaceLock | undefined;
    const m: Mutable = { history: [], incumbentSamples: [], incumbentDimensions: [], baselineSamples: [], best: Number.NaN, bestId: '', baseline: Number.NaN, hints: [], proposerFailures: 0, startedAt: clock.now(), iterationsThisRun: 0 };
    try {
      if (options.lockPath) lock = await acquireLock({ path: options.lockPath });
      const fingerprint = await harness.fingerprint?.();
      const rows = await results.read();
      await checkAgainstState(rows);
      if (rows.length > 0) {
        const first = rows[0]!;
        if (first.status !== 'baseline' || first.score === null) {
          throw new LoopError('RESULTS_CORRUPT', `[loop] [engine] ${results.path ?? 'the results log'} does not start with a baseline row; move it away to start a new run`, { details: { path: results.path } });
        }
        m.history.push(...rows);
        const { incumbent } = deriveCounters(rows);
        m.baseline = first.score;
        m.best = incumbent.score as number;
        m.bestId = incumbent.candidateId;
        await restoreSamples(m);
        await rollback.recover?.(m.bestId);
        hub.emit({ type: 'resumed', iteration: rows.length - 1, best: m.best, bestId: m.bestId });
      } else {
        await runBaseline(m, fingerprint);
      }
      let stop: StopDecision | undefined;
      for (;;) {
        stop = stopPolicy.check(state(m));
        if (stop) break;
        const goOn = batch ? await iterateBatch(m, fingerprint) : await iterate(m, fingerprint);
        if (!goOn) {
          stop = { reason: 'aborted', message: 'stopped by abort signal; the in-flight candidate was rolled back' };
          break;
        }
        m.hints = []; // hints apply to one proposal only
        await writeState(m, 'running');
        const s = state(m);
        for (const advisor of options.advisors ?? []) {
          for (const advice of advisor.advise(s)) {
            m.hints = [...m.hints, ...advice.hints];
            hub.emit({ type: 'advice', iteration: s.iteration, advice });
          }
        }
        if (m.proposerFailures >= maxProposerFailures) {
          stop = { reason: 'proposer-failing', message: `the proposer failed ${m.proposerFailures} times in a row` };
          break;
        }
      }
      await rollback.restoreBest?.(m.bestId);
      const c = deriveCounters(m.history);
      const summary: LoopSummary = {
        direction,
        baseline: m.baseline,
        best: m.best,
        bestId: m.bestId,
        iterations: m.history.length - 1,
        counts: c.counts,
        kept: keptChanges(m.history, direction),
        stop,
        durationMs: clock.now() - m.startedAt,
      };
      await writeState(m, 'stopped', { stopReason: stop.reason, stopMessage: stop.message });
      hub.emit({ type: 'stopped', summary });
      return summary;
    } catch (error) {
      if (m.history.length > 0 && !isLoopError(error, 'STATE_WRITE_FAILED')) {
        await writeState(m, 'failed', { error: { code: isLoopError(error) ? error.code : 'UNEXPECTED', message: (error as Error)?.message } }).catch(() => {});
      }
      throw error;
    } finally {
      hub.close();
      await lock?.release();
      running = false;
    }
  };

  return { run, on: (type, handler) => hub.on(type, handler), events: () => hub.iterate() };
}
