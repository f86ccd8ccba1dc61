import { isLoopError } from '../contracts/errors.js';
import { keptChanges } from './history.js';
import type { StopDecision } from '../contracts/stop-policy.js';
import type { LoopSummary } from '../contracts/summary.js';
import type { Engine } from './engine.js';
import type { SessionMemory } from './session-memory.js';

/** The stop decision of a halted step. */
export function haltStop(m: SessionMemory): StopDecision {
  const h = m.halted!;
  const reason =
    h.code === 'RESTORE_FAILED' ? 'restore-failed' : h.code === 'HARNESS_TAMPERED' ? 'harness-tampered' : 'halted';
  return { reason, message: `${h.status}: ${h.note}` };
}

/** Advisors' hints for the next proposal: asked after a step, once the stop policies let another one run. */
export function advise(e: Engine, m: SessionMemory): void {
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
 * restore-failed label and still goes on), build the summary, call the stop hook
 * (`LoopOptions.onStop`), write the state store as the last write, emit `stopped`.
 */
export async function stopSequence(e: Engine, m: SessionMemory, decision: StopDecision): Promise<LoopSummary> {
  let stop = decision;
  try {
    await e.options.rollback.restoreBest?.(m.bestId);
  } catch (error) {
    if (!isLoopError(error, 'RESTORE_FAILED')) throw error;
    m.halted ??= { status: e.statusNames.restoreFailed, note: error.message, code: error.code };
    m.fatal ??= error;
    if (stop.reason !== 'restore-failed') {
      stop = {
        reason: 'restore-failed',
        message: `${e.statusNames.restoreFailed}: ${error.message} (the loop was stopping: ${stop.message})`,
      };
    }
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
  await e.options.onStop?.(summary, e.loopState(m));
  const error = m.fatal ? { error: { code: m.fatal.code, message: m.fatal.message } } : {};
  await e.writeState(m, m.fatal ? 'failed' : 'stopped', {
    stopReason: stop.reason,
    stopMessage: stop.message,
    ...error,
  });
  for (const emit of m.deferred.splice(0)) emit();
  e.hub.emit({ type: 'stopped', summary });
  return summary;
}
