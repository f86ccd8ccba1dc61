import { isLoopError } from '../contracts/errors.js';
import type { IterationRecord } from '../contracts/iteration-record.js';
import type { Checkpoint } from '../contracts/rollback-strategy.js';
import { runCandidate } from './candidate.js';
import type { Outcome, Slot } from './outcome.js';
import type { Engine } from './engine.js';
import { pushRow, type SessionMemory } from './session-memory.js';

/** How a step ended: go on, stop because of the abort signal, or halt (the stop sequence runs). */
export type StepEnd = 'continue' | 'aborted' | 'halted';

/** The results row of an outcome. */
export function recordOf(o: Outcome, candidateId = o.candidateId): IterationRecord {
  const last = <T>(xs: readonly (T | undefined)[]) => xs.at(-1);
  const dims = last(o.dimensions);
  const gates = last(o.gates);
  return {
    iteration: o.iteration,
    candidateId,
    score: o.score,
    status: o.status,
    description: o.description,
    ...(o.label ? { label: o.label } : {}),
    ...(o.note ? { note: o.note } : {}),
    ...(o.error ? { error: o.error } : {}),
    ...(o.changedFiles ? { changedFiles: o.changedFiles } : {}),
    ...(dims ? { dimensions: dims } : {}),
    ...(gates ? { gates } : {}),
    ...(Object.keys(o.data).length > 0 ? { data: o.data } : {}),
  };
}

/** Records a decided outcome in the decisions log. */
export async function logOutcome(e: Engine, o: Outcome, record: IterationRecord, extra: Record<string, unknown> = {}) {
  if (!o.decision) return;
  await e.logDecision({
    iteration: o.iteration,
    candidateId: record.candidateId,
    status: o.status,
    ...(o.label ? { label: o.label } : {}),
    score: o.score,
    description: o.description,
    samples: o.samples,
    seedOnly: o.seedOnly,
    policy: e.keepPolicy.name,
    reason: o.decision.reason,
    ...(o.decision.evidence ? { evidence: o.decision.evidence } : {}),
    ...extra,
  });
}

/** Emits the event of a recorded row. */
export function emitRow(e: Engine, o: Outcome, record: IterationRecord, previousBest: number) {
  const durationMs = (o.ended ?? e.clock.now()) - o.started;
  if (record.status === 'kept')
    e.hub.emit({
      type: 'kept',
      record,
      decision: o.decision!,
      previousBest,
      durationMs,
      samples: o.samples,
      seedOnly: o.seedOnly,
    });
  else if (record.status === 'crash')
    e.hub.emit({ type: 'crash', record, logTail: o.logTail, willRepair: false, durationMs });
  else if (record.status === 'halted')
    e.hub.emit({ type: 'halted', record, status: record.label ?? 'halted', note: record.note ?? '' });
  else
    e.hub.emit({
      type: 'reverted',
      record,
      ...(o.decision ? { decision: o.decision } : {}),
      durationMs,
      samples: o.samples,
      seedOnly: o.seedOnly,
    });
}

/**
 * After a step's rows: the state store is written (the step's last write), then its events are
 * emitted. A halting step's state write is the stop sequence's (seed 002: the halted row, the
 * rollback, restoreBest, then state.json last), so its events wait in `m.deferred` until then.
 */
export async function afterRows(e: Engine, m: SessionMemory, emit: () => void): Promise<StepEnd> {
  if (m.halted) {
    m.deferred.push(emit);
    return 'halted';
  }
  await e.writeState(m, 'running');
  emit();
  return 'continue';
}

/** Makes `m` the new incumbent after `o` was kept with id `bestId`. */
export function adoptIncumbent(m: SessionMemory, o: Outcome, bestId: string) {
  m.bestId = bestId;
  m.best = o.score as number;
  m.incumbentSamples = [...o.samples];
  m.incumbentDimensions = [...o.dimensions];
  m.incumbentGates = o.gates.at(-1);
}

/**
 * Reverts to `cp`; a RESTORE_FAILED halts the loop with the restore-failed label: the row just
 * appended is amended in place into the halted row when the log can (seed 002), else it stays as
 * written (row n is still iteration n; the halt is in the state store and the summary) and a
 * `halted` event follows its own.
 *
 * @returns the record the history holds and, without `amendLast`, the halted record to announce.
 */
async function revertOrHalt(
  e: Engine,
  m: SessionMemory,
  cp: Checkpoint,
  record: IterationRecord,
): Promise<{ record: IterationRecord; halted?: IterationRecord }> {
  try {
    await e.options.rollback.revert(cp, {
      iteration: record.iteration,
      ...(record.candidateId ? { candidateId: record.candidateId } : {}),
    });
    return { record };
  } catch (error) {
    if (!isLoopError(error, 'RESTORE_FAILED')) throw error;
    const label = e.statusNames.restoreFailed;
    m.halted = { status: label, note: error.message, code: error.code };
    m.fatal = error;
    const halted: IterationRecord = {
      ...record,
      status: 'halted',
      label,
      note: error.message,
      description: `${record.description} (${label}: ${error.message})`,
    };
    if (!e.results.amendLast) return { record, halted };
    await e.results.amendLast(halted);
    return { record: halted };
  }
}

/** Opens the in-place slot of `iteration`: the checkpoint (with the plan) and the record of the candidate. */
export function inPlace(e: Engine, iteration: number, fingerprint: string | undefined) {
  const { rollback, artifact, harness } = e.options;
  let cp: Checkpoint | undefined;
  const open = async (plan: Parameters<typeof rollback.checkpoint>[1]): Promise<Slot> => {
    cp = await rollback.checkpoint(iteration, plan);
    const at = cp;
    return { artifact, harness, fingerprint, commit: async (info) => (await rollback.commit?.(at, info)) ?? '' };
  };
  /**
   * After an unexpected error (a harness that cannot start, a throwing keep policy): leaves the
   * workspace at the last kept state (unless the error is a failed restore), then rethrows it.
   */
  const unwind = async (error: unknown): Promise<never> => {
    if (cp && !isLoopError(error, 'RESTORE_FAILED')) await revertInPlace(e, cp, iteration);
    throw error;
  };
  return { open, checkpoint: () => cp, unwind };
}

/** Rolls the in-place candidate at `cp` back (an unexpected error, an abort, a host's stop). */
export async function revertInPlace(e: Engine, cp: Checkpoint, iteration: number, candidateId = ''): Promise<void> {
  await e.options.rollback.revert(cp, { iteration, ...(candidateId ? { candidateId } : {}) });
}

/**
 * Records an in-place outcome: the decisions log, the row (durable before the rollback acts),
 * keep or revert (verified), the history, the state store (the last write), then the event.
 */
export async function settleInPlace(
  e: Engine,
  m: SessionMemory,
  o: Outcome,
  cp: Checkpoint | undefined,
): Promise<StepEnd> {
  if (o.aborted) {
    if (cp) await revertInPlace(e, cp, o.iteration, o.candidateId);
    return 'aborted';
  }
  m.proposerFailures = o.proposerFailed ? m.proposerFailures + 1 : 0;
  let record = recordOf(o);
  let announce: IterationRecord | undefined;
  await logOutcome(e, o, record);
  const previousBest = m.best;
  await e.results.append(record); // durable before the rollback acts
  if (o.status === 'kept') {
    adoptIncumbent(m, o, await e.options.rollback.keep(cp!, o.candidateId || undefined));
  } else if (cp) {
    ({ record, halted: announce } = await revertOrHalt(e, m, cp, record));
  }
  if (o.halt && !m.halted) {
    m.halted = o.halt;
    if (o.fatal) m.fatal = o.fatal;
  }
  pushRow(m, record);
  const emit = () => {
    emitRow(e, o, record, previousBest);
    if (announce)
      e.hub.emit({ type: 'halted', record: announce, status: announce.label ?? 'halted', note: announce.note ?? '' });
  };
  return afterRows(e, m, emit);
}

/** One candidate, in place: checkpoint (with the plan) → edit → evaluate → row (durable) → keep or revert. */
export async function stepInPlace(e: Engine, m: SessionMemory, fingerprint: string | undefined): Promise<StepEnd> {
  const iteration = m.history.length;
  const slot = inPlace(e, iteration, fingerprint);
  let o: Outcome;
  try {
    o = await runCandidate(e, m, iteration, 0, slot.open);
  } catch (error) {
    return slot.unwind(error);
  }
  return settleInPlace(e, m, o, slot.checkpoint());
}
