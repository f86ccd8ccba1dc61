import { compareSnapshots, type Artifact } from './artifact.js';
import type { Advisor } from './advisor.js';
import { LoopError, isLoopError } from './errors.js';
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
import { writeJsonAtomic } from './state-file.js';
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
      startedAt: new Date(m.startedAt).toISOString(),
      updatedAt: new Date(clock.now()).toISOString(),
      ...extra,
    });
  };

  const evaluate = async (iteration: number): Promise<{ result: ScoreResult; durationMs: number }> => {
    const started = clock.now();
    const run = await harness.run({ iteration, signal });
    const result = await scorer.score(run);
    return { result, durationMs: clock.now() - started };
  };

  const runBaseline = async (m: Mutable, fingerprint: string | undefined): Promise<void> => {
    hub.emit({ type: 'iteration-started', iteration: 0, attempt: 0 });
    const cp = await rollback.checkpoint(0);
    const id = (await rollback.currentId?.()) ?? cp.id;
    await checkFingerprint(fingerprint);
    const { result, durationMs } = await evaluate(0);
    if (signal.aborted) throw new LoopError('BASELINE_FAILED', '[loop] [engine] aborted during the baseline run; nothing was recorded', { details: { aborted: true } });
    if (!result.ok) {
      throw new LoopError('BASELINE_FAILED', `[loop] [engine] the baseline run crashed (${result.message}); fix the harness before starting the loop. Last log lines:\n${result.logTail ?? ''}`, { details: { reason: result.reason, logTail: result.logTail } });
    }
    const record: IterationRecord = { iteration: 0, candidateId: id, score: result.value, status: 'baseline', description: 'baseline' };
    await results.append(record);
    m.history.push(record);
    m.baseline = m.best = result.value;
    m.bestId = id;
    await writeState(m, 'running');
    hub.emit({ type: 'baseline', record, durationMs });
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

    const revert = () => rollback.revert(cp, { iteration, ...(candidateId ? { candidateId } : {}) });
    const finish = async (record: IterationRecord, afterAppend: () => unknown) => {
      await results.append(record); // durable before any rollback
      await afterAppend();
      m.history.push(record);
      m.iterationsThisRun += 1;
    };

    const before = artifact ? await artifact.inspect() : undefined;
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
          await checkFingerprint(fingerprint);
          const { result } = await evaluate(iteration);
          if (signal.aborted) {
            await revert();
            return false;
          }
          if (result.ok) {
            score = result.value;
            decision = await keepPolicy.decide({ candidate: result.value, incumbent: m.best, direction });
            status = decision.keep ? 'kept' : 'reverted';
            description = proposal.description;
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
      if (status === 'kept') {
        const previousBest = m.best;
        await finish(record, async () => {
          m.bestId = await rollback.keep(cp, candidateId || undefined);
          m.best = score as number;
        });
        hub.emit({ type: 'kept', record, decision: decision!, previousBest, durationMs: durationMs() });
      } else {
        await finish(record, revert);
        if (status === 'crash') hub.emit({ type: 'crash', record, logTail, willRepair: false, durationMs: durationMs() });
        else hub.emit({ type: 'reverted', record, ...(decision ? { decision } : {}), durationMs: durationMs() });
      }
      return true;
    }

    async function findChanges() {
      // Compare with the kept state as it was before the edit (repairs included).
      return compareSnapshots(artifact!, before ?? {}, await artifact!.inspect());
    }
  };

  const run = async (): Promise<LoopSummary> => {
    if (running) throw new Error('[loop] [engine] run() is already in progress');
    running = true;
    let lock: WorkspaceLock | undefined;
    const m: Mutable = { history: [], best: Number.NaN, bestId: '', baseline: Number.NaN, hints: [], proposerFailures: 0, startedAt: clock.now(), iterationsThisRun: 0 };
    try {
      if (options.lockPath) lock = await acquireLock({ path: options.lockPath });
      const fingerprint = await harness.fingerprint?.();
      const rows = await results.read();
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
