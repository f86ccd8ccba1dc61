import { compareSnapshots, isUnder, type Artifact } from '../contracts/artifact.js';
import { LoopError, isLoopError } from '../contracts/errors.js';
import { firstVerdict } from '../contracts/guard.js';
import type { Harness } from '../contracts/harness.js';
import type { Proposal } from '../contracts/proposer.js';
import type { Engine } from './engine.js';
import { addData, applyVerdict, type FinishOptions, type Outcome, type PendingCandidate } from './outcome.js';
import { treeDigest } from './tree-digest.js';
import { decide } from './decide.js';
import { prunedClause } from './run-reporting.js';
import type { SessionMemory } from './session-memory.js';
import { messageOf, proposerCrash } from './proposer-crash.js';

/** Says which violations touched a read-only path and which lie elsewhere outside the targets. */
function describeViolations(artifact: Artifact, violations: readonly string[]): string {
  const path = (v: string) => v.replace(/ \(.*\)$/, '');
  const readOnly = violations.filter((v) => artifact.readOnly.some((r) => isUnder(path(v), r)));
  const outside = violations.filter((v) => !readOnly.includes(v));
  return [
    readOnly.length ? `changed read-only ${readOnly.join(', ')}` : '',
    outside.length ? `changed outside the targets ${outside.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/**
 * Calls the harness's `prepare` hint; a throw, or the rejection of one that returns a promise despite
 * its `void` type, is ignored (the run does its own set-up).
 */
function prepareRun(harness: Harness, iteration: number): void {
  try {
    const pending: unknown = harness.prepare?.({ iteration });
    if (pending instanceof Promise) pending.catch(() => undefined);
  } catch {
    // a hint only
  }
}

/**
 * Checks and evaluates the edit of a pending candidate: the changes against the snapshot, the
 * record (`rollback.commit`), the `beforeRun` guards, a duplicate of a tree already evaluated in
 * this run (not evaluated again: seed 001, a discarded change is never retried verbatim), the
 * harness fingerprint, the harness and scorer, repairs, the keep policy and the `afterScore`
 * guards. Writes no row and keeps or reverts nothing.
 *
 * @throws {LoopError} `EDIT_OUTSIDE_ARTIFACT` with `strict` when the edit changed a path outside
 *   the artifact (nothing recorded); whatever the harness, scorer, keep policy or a guard throws.
 */
export async function finishCandidate(
  e: Engine,
  m: SessionMemory,
  p: PendingCandidate,
  first: Proposal,
  options: FinishOptions,
): Promise<Outcome> {
  const { o, slot, plan, snapshotBefore, captured, extra } = p;
  const { iteration } = o;
  const detector = e.options.keep?.seedOnlyDetector;
  let proposal = first;
  addData(o, proposal.data);
  for (let attempt = 0; ;) {
    if (e.signal.aborted) return { ...o, aborted: true };
    prepareRun(slot.harness, iteration); // the run follows: its set-up overlaps the commit (issue 31)
    o.description = proposal.description;
    const after = slot.artifact && snapshotBefore ? await slot.artifact.inspect() : undefined;
    const changes = after ? compareSnapshots(slot.artifact!, snapshotBefore!, after) : undefined;
    if (options.strict && changes && changes.violations.length > 0) {
      throw new LoopError(
        'EDIT_OUTSIDE_ARTIFACT',
        `[loop] [engine] the edit told for ` +
          `iteration ${iteration} ${describeViolations(slot.artifact!, changes.violations)}; ` +
          `nothing was recorded: undo those changes and tell again, or stop the ` +
          `loop (which rolls the trial back)`,
        { details: { iteration, violations: changes.violations } },
      );
    }
    const changedFiles = changes?.changed ?? proposal.changedFiles;
    if (changedFiles) o.changedFiles = changedFiles;
    // A candidate that changed nothing gets no record of its own (no commit, no discarded ref).
    if (changes && changes.changed.length === 0) {
      return Object.assign(o, {
        status: 'reverted' as const,
        description: `${proposal.description} (no change: not evaluated)`,
        note: 'no change: not evaluated',
      });
    }
    const digest =
      e.options.keep?.skipDuplicates && after && changes && changes.violations.length === 0
        ? treeDigest(after)
        : undefined;
    const seen = digest === undefined ? undefined : m.evaluatedTrees.get(digest);
    if (seen !== undefined) {
      return Object.assign(o, {
        status: 'reverted' as const,
        description: `${proposal.description} (duplicate of iteration ${seen}: not evaluated)`,
        note: `duplicate of iteration ${seen}: not evaluated`,
      });
    }
    // Registered at once, so a twin in the same parallel batch sees it; dropped again if this one is not evaluated.
    if (digest !== undefined) m.evaluatedTrees.set(digest, iteration);
    const unregister = () =>
      digest !== undefined && m.evaluatedTrees.get(digest) === iteration && m.evaluatedTrees.delete(digest);
    if (slot.commit)
      o.candidateId = await slot.commit({
        iteration,
        attempt,
        description: proposal.description,
        ...(proposal.changedFiles ? { changedFiles: proposal.changedFiles } : {}),
      });
    if (changes && changes.violations.length > 0) {
      return Object.assign(o, {
        status: 'rejected' as const,
        description: `${proposal.description} (${describeViolations(slot.artifact!, changes.violations)})`,
      });
    }
    const run = await firstVerdict(e.guards, 'beforeRun', {
      ...e.guardInput(m, iteration, plan),
      ...(slot.workingCopy ? { workingCopy: slot.workingCopy } : {}),
      changes,
      description: proposal.description,
    });
    if (run) {
      unregister();
      return applyVerdict(o, run.guard.name, run.verdict, 'rejected');
    }
    o.seedOnly =
      changes !== undefined && detector !== undefined
        ? await detector.isSeedOnlyChange(
            {
              ...changes,
              description: proposal.description,
              ...(slot.workingCopy?.dir ? { root: slot.workingCopy.dir } : {}),
              ...(slot.artifact ? { artifact: slot.artifact } : {}),
            },
            captured,
          )
        : false;
    try {
      await e.checkFingerprint(slot.fingerprint, slot.harness);
    } catch (error) {
      unregister();
      if (!isLoopError(error, 'HARNESS_TAMPERED')) throw error;
      const label = e.statusNames.harnessTampered;
      return Object.assign(o, {
        status: 'halted' as const,
        label,
        note: error.message,
        description: `${proposal.description} (${label})`,
        halt: { status: label, note: error.message, code: error.code },
        fatal: error,
      });
    }
    // The evaluated tree's digest goes into the record, so a resumed session still knows it (skipDuplicates).
    if (digest !== undefined) addData(o, { tree: digest });
    const evaluated = await e.evaluate(
      iteration,
      0,
      slot.harness,
      { history: m.history, incumbent: m.counters.incumbent },
      slot.signal,
    );
    const { result } = evaluated;
    addData(o, evaluated.data);
    // The loop stopped, or an async pool abandoned this candidate: no repair, no row.
    if (e.signal.aborted || slot.signal?.aborted) return { ...o, aborted: true };
    if (evaluated.pruned) {
      // A pruned run is a discard, never a crash (issue 27): its score is its last report.
      const clause = prunedClause(evaluated.pruned, e.options.prune?.steps);
      return Object.assign(o, {
        status: 'reverted' as const,
        score: evaluated.pruned.value,
        description: `${proposal.description} (${clause})`,
        note: clause,
        decision: { keep: false, reason: clause },
      });
    }
    if (result.ok) return decide(e, m, o, slot, plan, proposal, result, options);
    o.logTail = result.logTail ?? '';
    if (options.repair && attempt < e.maxRepairs && e.options.proposer?.repair !== undefined) {
      const record = {
        iteration,
        candidateId: o.candidateId,
        score: null,
        status: 'crash' as const,
        description: `${proposal.description} (${result.message})`,
        error: result.message,
        data: o.data,
      };
      e.hub.emit({
        type: 'crash',
        record,
        logTail: o.logTail,
        willRepair: true,
        durationMs: e.clock.now() - o.started,
      });
      attempt += 1;
      e.hub.emit({ type: 'iteration-started', iteration, attempt });
      let repaired: Proposal | undefined;
      try {
        repaired = await e.options.proposer.repair(
          e.context(m, iteration, attempt, { ...extra, crash: { message: result.message, logTail: o.logTail } }),
        );
      } catch (error) {
        // A repair that fails leaves the crash as it was (its cost, if it says one, in the row), never the run.
        const failed = proposerCrash(e, o, error);
        if (failed.aborted) return failed;
        const clause = `crash: ${result.message}; repair ${attempt} failed: ${messageOf(error)}`;
        return Object.assign(o, {
          description: `${proposal.description} (${clause})`,
          error: result.message,
          proposerFailed: false,
        });
      }
      if (repaired) {
        proposal = { ...repaired, description: `${proposal.description}; repair ${attempt}: ${repaired.description}` };
        addData(o, repaired.data);
        continue;
      }
    }
    return Object.assign(o, {
      status: 'crash' as const,
      description: `${proposal.description} (crash: ${result.message})`,
      error: result.message,
    });
  }
}
