import pLimit from 'p-limit';
import { compareSnapshots } from '../artifact.js';
import { LoopError, isLoopError } from '../errors.js';
import type { IterationRecord } from '../iteration-record.js';
import type { Checkpoint } from '../rollback-strategy.js';
import { isBetter } from '../scorer.js';
import type { WorkingCopy } from '../working-copy.js';
import { proposalTurns, runCandidate, type IncumbentRemeasure, type Outcome, type Slot } from './candidate.js';
import type { Engine } from './engine.js';
import { pushRow, type RunState } from './run-state.js';

/** How a step ended: go on, stop because of the abort signal, or halt (the stop sequence runs). */
export type StepEnd = 'continue' | 'aborted' | 'halted';

/** The results row of an outcome. */
function recordOf(o: Outcome, candidateId = o.candidateId): IterationRecord {
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
async function logOutcome(e: Engine, o: Outcome, record: IterationRecord, extra: Record<string, unknown> = {}) {
  if (!o.decision) return;
  await e.logDecision({ iteration: o.iteration, candidateId: record.candidateId, status: o.status, ...(o.label ? { label: o.label } : {}), score: o.score, description: o.description, samples: o.samples, seedOnly: o.seedOnly, policy: e.keepPolicy.name, reason: o.decision.reason, ...(o.decision.evidence ? { evidence: o.decision.evidence } : {}), ...extra });
}

/** Emits the event of a recorded row. */
function emitRow(e: Engine, o: Outcome, record: IterationRecord, previousBest: number) {
  const durationMs = e.clock.now() - o.started;
  if (record.status === 'kept') e.hub.emit({ type: 'kept', record, decision: o.decision!, previousBest, durationMs, samples: o.samples, seedOnly: o.seedOnly });
  else if (record.status === 'crash') e.hub.emit({ type: 'crash', record, logTail: o.logTail, willRepair: false, durationMs });
  else if (record.status === 'halted') e.hub.emit({ type: 'halted', record, status: record.label ?? 'halted', note: record.note ?? '' });
  else e.hub.emit({ type: 'reverted', record, ...(o.decision ? { decision: o.decision } : {}), durationMs, samples: o.samples, seedOnly: o.seedOnly });
}

/**
 * After a step's rows: the state store is written (the step's last write), then its events are
 * emitted. A halting step's state write is the stop sequence's (seed 002: the halted row, the
 * rollback, restoreBest, then state.json last), so its events wait in `m.deferred` until then.
 */
async function afterRows(e: Engine, m: RunState, emit: () => void): Promise<StepEnd> {
  if (m.halted) {
    m.deferred.push(emit);
    return 'halted';
  }
  await e.writeState(m, 'running');
  emit();
  return 'continue';
}

/** Makes `m` the new incumbent after `o` was kept with id `bestId`. */
function adoptIncumbent(m: RunState, o: Outcome, bestId: string) {
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
async function revertOrHalt(e: Engine, m: RunState, cp: Checkpoint, record: IterationRecord): Promise<{ record: IterationRecord; halted?: IterationRecord }> {
  try {
    await e.options.rollback.revert(cp, { iteration: record.iteration, ...(record.candidateId ? { candidateId: record.candidateId } : {}) });
    return { record };
  } catch (error) {
    if (!isLoopError(error, 'RESTORE_FAILED')) throw error;
    const label = e.statusNames.restoreFailed;
    m.halted = { status: label, note: error.message, code: error.code };
    m.fatal = error;
    const halted: IterationRecord = { ...record, status: 'halted', label, note: error.message, description: `${record.description} (${label}: ${error.message})` };
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
  return { open, checkpoint: () => cp };
}

/** Rolls the in-place candidate at `cp` back (an unexpected error, an abort, a host's stop). */
export async function revertInPlace(e: Engine, cp: Checkpoint, iteration: number, candidateId = ''): Promise<void> {
  await e.options.rollback.revert(cp, { iteration, ...(candidateId ? { candidateId } : {}) });
}

/**
 * Records an in-place outcome: the decisions log, the row (durable before the rollback acts),
 * keep or revert (verified), the history, the state store (the last write), then the event.
 */
export async function settleInPlace(e: Engine, m: RunState, o: Outcome, cp: Checkpoint | undefined): Promise<StepEnd> {
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
    if (announce) e.hub.emit({ type: 'halted', record: announce, status: announce.label ?? 'halted', note: announce.note ?? '' });
  };
  return afterRows(e, m, emit);
}

/** One candidate, in place: checkpoint (with the plan) → edit → evaluate → row (durable) → keep or revert. */
export async function stepInPlace(e: Engine, m: RunState, fingerprint: string | undefined): Promise<StepEnd> {
  const iteration = m.history.length;
  const slot = inPlace(e, iteration, fingerprint);
  let o: Outcome;
  try {
    o = await runCandidate(e, m, iteration, 0, slot.open);
  } catch (error) {
    // Anything unexpected (a harness that cannot start, a throwing keep policy) leaves the
    // workspace at the last kept state before the error propagates.
    const cp = slot.checkpoint();
    if (cp && !isLoopError(error, 'RESTORE_FAILED')) await revertInPlace(e, cp, iteration);
    throw error;
  }
  return settleInPlace(e, m, o, slot.checkpoint());
}

/** Re-measures the incumbent `repeats` times in the main workspace (`parallel.remeasureIncumbent`). */
async function remeasure(e: Engine, m: RunState, fingerprint: string | undefined, repeats: number): Promise<IncumbentRemeasure> {
  const out: IncumbentRemeasure = { samples: [], dimensions: [], crashed: 0 };
  const iteration = m.counters.incumbent?.iteration ?? 0;
  try {
    for (let repeat = 0; repeat < repeats && !e.signal.aborted; repeat++) {
      await e.checkFingerprint(fingerprint);
      const { result } = await e.evaluate(iteration, repeat);
      if (result.ok) {
        out.samples.push(result.value);
        out.dimensions.push(result.dimensions);
      } else out.crashed += 1;
    }
  } catch (error) {
    out.error = error;
  }
  return out;
}

/**
 * Keeps the change of every candidate of the batch that is not adopted reachable, as an in-place
 * discard is (issue 15; docs/file-formats.md: `refs/loop/discarded/<n>` with the git rollback):
 * one at a time, from the incumbent, the copy's change is adopted into the main workspace,
 * recorded with `rollback.commit` and rolled back with `rollback.revert`, which saves it (the git
 * rollback points `refs/loop/discarded/<iteration>` at the commit). A copy that changed nothing
 * (a proposer failure, a no-op) is skipped. Runs after every candidate and re-measurement of the
 * batch ended, before the winner is adopted, so the winner's parent stays the incumbent. Off when
 * the rollback has no `commit` or `parallel.saveNonWinners` is false.
 *
 * @returns the candidate id (`rollback.commit`'s return) per saved outcome, for its results row.
 * @throws {LoopError} `RESTORE_FAILED` when a revert does not verify (the batch stops there).
 */
async function saveNonWinners(e: Engine, outcomes: readonly Outcome[], winner: Outcome | undefined): Promise<Map<Outcome, string>> {
  const { rollback } = e.options;
  const b = e.options.parallel!;
  const ids = new Map<Outcome, string>();
  if (!rollback.commit || b.saveNonWinners === false) return ids;
  for (const o of outcomes) {
    const copy = o.slot?.workingCopy;
    if (o === winner || !copy || o.aborted || o.status === 'halted') continue;
    const cp = await rollback.checkpoint(o.iteration, o.plan);
    let candidateId = '';
    const changedFiles = await b.workingCopies.adopt(copy);
    if (changedFiles.length === 0) continue; // nothing of it reached the main workspace
    try {
      candidateId = await rollback.commit(cp, { iteration: o.iteration, attempt: 0, description: o.description, changedFiles });
    } finally {
      await rollback.revert(cp, { iteration: o.iteration, ...(candidateId ? { candidateId } : {}) });
    }
    ids.set(o, candidateId);
  }
  return ids;
}

/**
 * One parallel batch: K candidates through the same path as an in-place one, each in its own
 * working copy; the others are saved first (see `saveNonWinners`), then the best passing one is
 * adopted into the main workspace (verified), recorded with `rollback.commit` and kept; one row
 * per candidate, all durable before the keep.
 */
export async function stepBatch(e: Engine, m: RunState, fingerprint: string | undefined): Promise<StepEnd> {
  const b = e.options.parallel!;
  const { rollback, artifact } = e.options;
  const candidates = b.candidates ?? 1;
  const first = m.history.length;
  const limit = pLimit(b.concurrency ?? candidates);
  const copies: WorkingCopy[] = [];
  try {
    await e.checkFingerprint(fingerprint);
    const repeats = b.remeasureIncumbent ?? 0;
    const incumbent = repeats > 0 ? remeasure(e, m, fingerprint, repeats) : undefined;
    const open = (iteration: number, k: number) => async (): Promise<Slot> => {
      const copy = await b.workingCopies.create(iteration, k);
      copies.push(copy);
      return { artifact: copy.artifact, harness: copy.harness, fingerprint: await copy.harness.fingerprint?.(), workingCopy: copy };
    };
    const turns = proposalTurns(candidates);
    const settled = await Promise.allSettled(Array.from({ length: candidates }, (_, k) => limit(() => runCandidate(e, m, first + k, k, open(first + k, k), incumbent, turns(k)))));
    const fresh = incumbent ? await incumbent : undefined;
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    if (fresh?.error !== undefined) throw fresh.error;
    const outcomes = settled.map((s) => (s as PromiseFulfilledResult<Outcome>).value).sort((a, z) => a.k - z.k);
    if (e.signal.aborted || outcomes.some((o) => o.aborted)) return 'aborted';

    const halting = outcomes.find((o) => o.halt);
    let winner: Outcome | undefined;
    for (const o of halting ? [] : outcomes) {
      if (o.status === 'kept' && (!winner || isBetter(o.score as number, winner.score as number, e.direction))) winner = o;
    }
    for (const o of outcomes) {
      if (o.status !== 'kept' || o === winner) continue;
      const why = winner ? `iteration ${winner.iteration} scored ${winner.score}` : `iteration ${halting!.iteration} halted the loop`;
      o.status = 'reverted';
      o.decision = { ...o.decision!, keep: false, reason: `not the best of the batch: passed (${o.decision!.reason}) but ${why}` };
      o.description = `${o.description} (not the best of the batch)`;
    }

    const saved = await saveNonWinners(e, outcomes, halting ? undefined : winner);
    let cp: Checkpoint | undefined;
    let candidateId = '';
    if (winner) {
      cp = await rollback.checkpoint(winner.iteration, winner.plan);
      try {
        const copy = winner.slot!.workingCopy!;
        const changedFiles = await b.workingCopies.adopt(copy);
        if (artifact) {
          const left = compareSnapshots(artifact, await artifact.inspect(), await copy.artifact.inspect()).changed;
          if (left.length > 0) {
            throw new LoopError('RESTORE_FAILED', `[loop] [engine] adopting ${copy.name} with ${b.workingCopies.name} left ${left.join(', ')} different from the copy; the main workspace was rolled back to the last kept state`, { details: { copy: copy.name, paths: left } });
          }
        }
        candidateId = (await rollback.commit?.(cp, { iteration: winner.iteration, attempt: 0, description: winner.description, changedFiles })) ?? '';
      } catch (error) {
        await rollback.revert(cp, { iteration: winner.iteration, ...(candidateId ? { candidateId } : {}) });
        throw error;
      }
    }

    const records = outcomes.map((o) => recordOf(o, o === winner ? candidateId : (saved.get(o) ?? '')));
    for (const [i, o] of outcomes.entries()) {
      await e.results.append(records[i]!); // durable before the keep
      await logOutcome(e, o, records[i]!, { batch: { first, k: o.k, candidates }, ...(fresh ? { incumbentRemeasure: { samples: fresh.samples, crashed: fresh.crashed } } : {}) });
    }
    const previousBest = m.best;
    if (winner) adoptIncumbent(m, winner, await rollback.keep(cp!, candidateId || undefined));
    if (halting) {
      m.halted = halting.halt;
      if (halting.fatal) m.fatal = halting.fatal;
    }
    for (const [i, o] of outcomes.entries()) {
      pushRow(m, records[i]!);
      m.proposerFailures = o.proposerFailed ? m.proposerFailures + 1 : 0;
    }
    return afterRows(e, m, () => {
      for (const [i, o] of outcomes.entries()) emitRow(e, o, records[i]!, previousBest);
    });
  } finally {
    for (const copy of copies) await copy.dispose?.();
  }
}
