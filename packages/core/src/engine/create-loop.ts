import { isLoopError } from '../errors.js';
import type { LoopEvent, LoopEventOf, LoopEventType } from '../events.js';
import { keptChanges } from '../internal/history.js';
import { acquireLock, type WorkspaceLock } from '../lock.js';
import type { StopDecision } from '../stop-policy.js';
import type { LoopSummary } from '../summary.js';
import { runBaseline } from './baseline.js';
import { createEngine, type Engine } from './engine.js';
import type { LoopOptions } from './options.js';
import { checkAgainstState, resumeFrom } from './resume.js';
import { newRunState, type RunState } from './run-state.js';
import { stepBatch, stepInPlace } from './step.js';

/** A configured loop. */
export interface Loop {
  /**
   * Runs until a stop policy fires, a guard halts or the signal aborts, then runs the stop
   * sequence: restore the best kept state, build the summary, write the state store last. Resumes
   * when the results log already has rows.
   *
   * A halt that is an error (a failed restore, a tampered harness) still runs the stop sequence
   * and writes its `halted` row and state, then throws with `error.details.summary` set.
   *
   * @throws {LoopError} `BASELINE_FAILED` (the baseline crashed), `LOCK_HELD`, `RESTORE_FAILED`
   *   (the workspace could not be restored, or a parallel batch's winner could not be adopted and
   *   verified), `STATE_WRITE_FAILED`, `HARNESS_TAMPERED`, `RESULTS_CORRUPT`, `RESUME_MISMATCH`,
   *   `STATE_CORRUPT`, and the rollback's own codes.
   */
  readonly run: () => Promise<LoopSummary>;
  /** Subscribes to one event type; returns the unsubscribe function. */
  readonly on: <T extends LoopEventType>(type: T, handler: (event: LoopEventOf<T>) => void) => () => void;
  /** Iterates events from now until the loop stops. */
  readonly events: () => AsyncIterableIterator<LoopEvent>;
}

/** The stop decision of a halted step. */
function haltStop(m: RunState): StopDecision {
  const h = m.halted!;
  return { reason: h.code === 'RESTORE_FAILED' ? 'restore-failed' : h.code === 'HARNESS_TAMPERED' ? 'harness-tampered' : 'halted', message: `${h.status}: ${h.note}` };
}

/** Advisors' hints for the next proposal: asked after a step, once the stop policies let another one run. */
function advise(e: Engine, m: RunState) {
  m.hints = []; // hints apply to one proposal only
  const s = e.loopState(m);
  for (const advisor of e.options.advisors ?? []) {
    for (const advice of advisor.advise(s)) {
      m.hints = [...m.hints, ...advice.hints];
      e.hub.emit({ type: 'advice', iteration: s.iteration, advice });
    }
  }
}

/**
 * The stop sequence (seed 002's order): restore the best kept state (a failure halts with the
 * restore-failed label and still goes on), build the summary, write the state store as the last
 * write, emit `stopped`.
 */
async function stopSequence(e: Engine, m: RunState, stop: StopDecision): Promise<LoopSummary> {
  try {
    await e.options.rollback.restoreBest?.(m.bestId);
  } catch (error) {
    if (!isLoopError(error, 'RESTORE_FAILED')) throw error;
    m.halted ??= { status: e.statusNames.restoreFailed, note: error.message, code: error.code };
    m.fatal ??= error;
    if (stop.reason !== 'restore-failed') stop = { reason: 'restore-failed', message: `${e.statusNames.restoreFailed}: ${error.message} (the loop was stopping: ${stop.message})` };
  }
  const summary: LoopSummary = {
    direction: e.direction,
    baseline: m.baseline,
    best: m.best,
    bestId: m.bestId,
    iterations: m.history.length - 1,
    counts: { ...m.counters.counts },
    kept: keptChanges(m.history, e.direction),
    stop,
    durationMs: e.clock.now() - m.startedAt,
    iterationsThisRun: m.iterationsThisRun,
    ...(m.halted ? { halted: m.halted } : {}),
  };
  await e.writeState(m, m.fatal ? 'failed' : 'stopped', { stopReason: stop.reason, stopMessage: stop.message, ...(m.fatal ? { error: { code: m.fatal.code, message: m.fatal.message } } : {}) });
  e.hub.emit({ type: 'stopped', summary });
  return summary;
}

/**
 * Creates a keep/revert loop: the one engine every preset configures. One iteration: plan →
 * guards (before edit) → checkpoint → proposer edits → read-only check → rollback.commit → guards
 * (before run) → harness (fingerprint re-checked first) → scorer → keep policy → guards (after
 * score) → results row appended and flushed → keep or revert (verified) → state store (last
 * write) → events → stop policies. A parallel batch runs K candidates through the same path in
 * working copies.
 *
 * @throws {ConfigError} `CONFIG_INVALID` naming the invalid option (`engine.<field>`), checked by
 *   `loopOptionsSchema`.
 *
 * @example
 * const loop = createLoop({ proposer, harness, scorer, rollback, stop: anyOf(maxIterations(20), plateau(5)) });
 * loop.on('kept', (e) => console.log('kept', e.record.description));
 * const summary = await loop.run();
 */
export function createLoop(options: LoopOptions): Loop {
  const e = createEngine(options);
  const step = e.options.parallel ? stepBatch : stepInPlace;
  let running = false;

  const run = async (): Promise<LoopSummary> => {
    if (running) throw new Error('[loop] [engine] run() is already in progress');
    running = true;
    let lock: WorkspaceLock | undefined;
    const m = newRunState(e.clock.now());
    try {
      if (e.options.lockPath) lock = await acquireLock({ path: e.options.lockPath });
      const fingerprint = await e.options.harness.fingerprint?.();
      const rows = await e.results.read();
      const saved = await e.store?.read();
      checkAgainstState(e, rows, saved);
      if (rows.length > 0) await resumeFrom(e, m, rows, saved);
      else await runBaseline(e, m, fingerprint);
      let stop: StopDecision | undefined;
      let stepped = false;
      for (;;) {
        stop = e.stopPolicy.check(e.loopState(m));
        if (stop) break;
        // Advice is for the next proposal, so it is asked for only once one is coming: none is
        // printed after the final iteration (a cool-down hint with nothing left to cool down).
        if (stepped) advise(e, m);
        const end = await step(e, m, fingerprint);
        stepped = true;
        if (end === 'aborted') {
          stop = { reason: 'aborted', message: 'stopped by abort signal; the in-flight candidate was rolled back' };
          break;
        }
        if (end === 'halted') {
          stop = haltStop(m);
          break;
        }
        await e.writeState(m, 'running');
        if (m.proposerFailures >= e.maxProposerFailures) {
          stop = { reason: 'proposer-failing', message: `the proposer failed ${m.proposerFailures} times in a row` };
          break;
        }
      }
      const summary = await stopSequence(e, m, stop);
      if (m.fatal) {
        m.fatal.details.summary = summary;
        throw m.fatal;
      }
      return summary;
    } catch (error) {
      if (m.history.length > 0 && error !== m.fatal && !isLoopError(error, 'STATE_WRITE_FAILED')) {
        await e.writeState(m, 'failed', { error: { code: isLoopError(error) ? error.code : 'UNEXPECTED', message: (error as Error)?.message } }).catch(() => {});
      }
      throw error;
    } finally {
      e.hub.close();
      await lock?.release();
      running = false;
    }
  };

  return { run, on: (type, handler) => e.hub.on(type, handler), events: () => e.hub.iterate() };
}
