import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { compareSnapshots, type Artifact } from './artifact.js';
import type { Advisor } from './advisor.js';
import { ConfigError, LoopError, isLoopError } from './errors.js';
import type { LoopEvent, LoopEventOf, LoopEventType } from './events.js';
import type { Harness } from './harness.js';
import { EventHub } from './internal/event-hub.js';
import { deriveCounters, keptChanges } from './internal/history.js';
import type { IterationRecord, IterationStatus } from './iteration-record.js';
import { strictImprovement, type KeepDecision, type KeepPolicy } from './keep-policy.js';
import { acquireLock, type WorkspaceLock } from './lock.js';
import type { LoopState } from './loop-state.js';
import type { Proposal, ProposalContext, Proposer } from './proposer.js';
import { createMemoryResultsLog, type ResultsLog } from './results-log.js';
import type { RollbackStrategy } from './rollback-strategy.js';
import type { Scorer, ScoreResult } from './scorer.js';
import type { SeedOnlyDetector } from './seed-only.js';
import { readJson, writeJsonAtomic } from './state-file.js';
import { summarizeSamples, type SampleSummary } from './statistics.js';
import { anyOf, neverStop, onAbort, type StopDecision, type StopPolicy } from './stop-policy.js';
import type { LoopSummary } from './summary.js';
import { systemClock, type Clock } from './types.js';

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
}

/** A configured loop. */
export interface Loop {
  /**
   * Runs until a stop policy fires or the signal aborts, then restores the best kept state and
   * returns the summary. Resumes when the results log already has rows.
   *
   * @throws {LoopError} `BASELINE_FAILED` (the baseline crashed), `LOCK_HELD`, `RESTORE_FAILED`
   *   (the workspace could not be restored: the loop halts), `STATE_WRITE_FAILED`,
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
 * `@loop/auto-iterate` validate user config with zod and name the invalid field.
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

  const evaluate = async (iteration: number, repeat = 0): Promise<{ result: ScoreResult; durationMs: number }> => {
    const started = clock.now();
    const run = await harness.run({ iteration, signal, seed: seedForRepeat(repeat), repeat });
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

  const checkFingerprint = async (expected: string | undefined) => {
    if (expected === undefined || !harness.fingerprint) return;
    const now = await harness.fingerprint();
    if (now !== expected) {
      throw new LoopError('HARNESS_TAMPERED', `[loop] [engine] the harness ${harness.name} changed during the run (fingerprint ${expected.slice(0, 12)} → ${now.slice(0, 12)}); the evaluation is ground truth and must not change`, { details: { expected, actual: now } });
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
        const goOn = await iterate(m, fingerprint);
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
