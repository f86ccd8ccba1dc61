import pLimit from 'p-limit';
import { compareSnapshots } from '../contracts/artifact.js';
import { LoopError } from '../contracts/errors.js';
import type { Checkpoint } from '../contracts/rollback-strategy.js';
import { isBetter } from '../contracts/scorer.js';
import type { WorkingCopy } from '../contracts/working-copy.js';
import { runCandidate } from './candidate.js';
import type { IncumbentRemeasure, Outcome, Slot } from './outcome.js';
import type { Engine } from './engine.js';
import { proposalTurns } from './proposal-turns.js';
import { pushRow, type SessionMemory } from './session-memory.js';
import { adoptIncumbent, afterRows, emitRow, logOutcome, recordOf, type StepEnd } from './step.js';

/** Re-measures the incumbent `repeats` times in the main workspace (`parallel.remeasureIncumbent`). */
async function remeasure(
  e: Engine,
  m: SessionMemory,
  fingerprint: string | undefined,
  repeats: number,
): Promise<IncumbentRemeasure> {
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
export async function saveNonWinners(
  e: Engine,
  outcomes: readonly Outcome[],
  winner: Outcome | undefined,
): Promise<Map<Outcome, string>> {
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
      candidateId = await rollback.commit(cp, {
        iteration: o.iteration,
        attempt: 0,
        description: o.description,
        changedFiles,
      });
    } finally {
      await rollback.revert(cp, { iteration: o.iteration, ...(candidateId ? { candidateId } : {}) });
    }
    ids.set(o, candidateId);
  }
  return ids;
}

/**
 * Adopts `winner`'s working copy into the main workspace (verified against the copy when there is
 * an artifact) and records it with `rollback.commit`; on any failure the main workspace is
 * reverted to the incumbent and the error rethrown.
 *
 * @returns the checkpoint to keep and the candidate id.
 * @throws {LoopError} `RESTORE_FAILED` when the adopted files differ from the copy.
 */
export async function adoptWinner(e: Engine, winner: Outcome): Promise<{ cp: Checkpoint; candidateId: string }> {
  const { rollback, artifact } = e.options;
  const b = e.options.parallel!;
  const cp = await rollback.checkpoint(winner.iteration, winner.plan);
  let candidateId = '';
  try {
    const copy = winner.slot!.workingCopy!;
    const changedFiles = await b.workingCopies.adopt(copy);
    if (artifact) {
      const left = compareSnapshots(artifact, await artifact.inspect(), await copy.artifact.inspect()).changed;
      if (left.length > 0) {
        throw new LoopError(
          'RESTORE_FAILED',
          `[loop] [engine] adopting ${copy.name} with ${b.workingCopies.name} ` +
            `left ${left.join(', ')} different from the copy; the main workspace was ` +
            `rolled back to the last kept state`,
          { details: { copy: copy.name, paths: left } },
        );
      }
    }
    candidateId =
      (await rollback.commit?.(cp, {
        iteration: winner.iteration,
        attempt: 0,
        description: winner.description,
        changedFiles,
      })) ?? '';
  } catch (error) {
    await rollback.revert(cp, { iteration: winner.iteration, ...(candidateId ? { candidateId } : {}) });
    throw error;
  }
  return { cp, candidateId };
}

/**
 * One parallel batch: K candidates through the same path as an in-place one, each in its own
 * working copy; the others are saved first (see `saveNonWinners`), then the best passing one is
 * adopted into the main workspace (verified), recorded with `rollback.commit` and kept; one row
 * per candidate, all durable before the keep.
 */
export async function stepBatch(e: Engine, m: SessionMemory, fingerprint: string | undefined): Promise<StepEnd> {
  const b = e.options.parallel!;
  const { rollback } = e.options;
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
      return {
        artifact: copy.artifact,
        harness: copy.harness,
        fingerprint: await copy.harness.fingerprint?.(),
        workingCopy: copy,
      };
    };
    const turns = proposalTurns(candidates);
    const settled = await Promise.allSettled(
      Array.from({ length: candidates }, (_, k) =>
        limit(() => runCandidate(e, m, first + k, k, open(first + k, k), incumbent, turns(k))),
      ),
    );
    const fresh = incumbent ? await incumbent : undefined;
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    if (fresh?.error !== undefined) throw fresh.error;
    const outcomes = settled.map((s) => (s as PromiseFulfilledResult<Outcome>).value).sort((a, z) => a.k - z.k);
    if (e.signal.aborted || outcomes.some((o) => o.aborted)) return 'aborted';

    const halting = outcomes.find((o) => o.halt);
    let winner: Outcome | undefined;
    for (const o of halting ? [] : outcomes) {
      if (o.status === 'kept' && (!winner || isBetter(o.score as number, winner.score as number, e.direction)))
        winner = o;
    }
    for (const o of outcomes) {
      if (o.status !== 'kept' || o === winner) continue;
      const why = winner
        ? `iteration ${winner.iteration} scored ${winner.score}`
        : `iteration ${halting!.iteration} halted the loop`;
      o.status = 'reverted';
      o.decision = {
        ...o.decision!,
        keep: false,
        reason: `not the best of the batch: passed (${o.decision!.reason}) but ${why}`,
      };
      o.description = `${o.description} (not the best of the batch)`;
    }

    const saved = await saveNonWinners(e, outcomes, halting ? undefined : winner);
    const adopted = winner ? await adoptWinner(e, winner) : undefined;
    const cp = adopted?.cp;
    const candidateId = adopted?.candidateId ?? '';

    const records = outcomes.map((o) => recordOf(o, o === winner ? candidateId : (saved.get(o) ?? '')));
    for (const [i, o] of outcomes.entries()) {
      await e.results.append(records[i]!); // durable before the keep
      await logOutcome(e, o, records[i]!, {
        batch: { first, k: o.k, candidates },
        ...(fresh ? { incumbentRemeasure: { samples: fresh.samples, crashed: fresh.crashed } } : {}),
      });
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
