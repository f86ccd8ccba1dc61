import {
  createJsonStateStore,
  createLoop,
  isLoopError,
  LoopError,
  type Guard,
  type IterationRecord,
  type KeepPolicy,
  type LoopSummary,
  type RollbackStrategy,
  type StopDecision,
  type StopPolicy,
} from '@loop/core';
import { candidateOf, createCollieResultsLog, factsOfRows } from '../collie-rows.js';
import type { CollieCandidate, MatrixDecision } from '../collie-rows.js';
import type { RunPaths } from '../paths.js';
import { decideRollback, type PrimaryGoal } from '../rollback-matrix.js';
import type { RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import { collieStopState, evaluateStopChecks, stopChecks } from '../stop-checks.js';
import { readTokensUsed } from '../token-meter.js';
import type { StageContext } from './stage-context.js';

/**
 * Seed 000's Stage 6 rollback matrix as a core `KeepPolicy`, with the user's keep policy after it
 * (a user policy can only revert more). Keeps unless the user's policy says no; `data.matrix`
 * ({@link MatrixDecision}) names the matrix row and the FIXes it reverts per FIX. The user's
 * policy sees `incumbent` = the best kept scalar of collie's rows (seed 000's `scalar_before` is
 * the last rerun's, even a reverted one) and is not asked without FIXes or an incumbent.
 */
export function collieKeepPolicy(
  goal: PrimaryGoal,
  c: CollieCandidate,
  incumbent: number | null,
  user: KeepPolicy | undefined,
): KeepPolicy {
  return {
    name: 'collie-rollback-matrix',
    decide: async ({ candidate }) => {
      const matrix = decideRollback(goal, c.before === null ? null : candidate - c.before, c.fixes);
      const decided: MatrixDecision = { row: matrix.row, revert: matrix.revert };
      if (user !== undefined && incumbent !== null && c.fixes.length > 0) {
        const d = await user.decide({ candidate, incumbent, direction: 'maximize' });
        const why = `${user.name}: ${d.reason}`;
        if (!d.keep) return { keep: false, reason: why, data: { matrix: { ...decided, why } } };
      }
      return { keep: true, reason: matrix.row, data: { matrix: decided } };
    },
  };
}

/**
 * The engine's rollback for a Stage 5.3 candidate: the checkpoint is the Stage 5.1 base, the
 * candidate's id its last FIX commit (`tip`; the base when none was applied), and keep and revert
 * record nothing in git. Stage 6, a durable step of its own, carries out what the row says
 * ({@link rollbackOf}: per-FIX `git revert`, one commit with a `Collie-Revert` trailer that a
 * redone step finds), so a kill between the row and the revert never loses or repeats a revert.
 */
export function deferredRollback(base: string | null, tip: string | null): RollbackStrategy {
  return {
    name: 'collie-stage6',
    checkpoint: (iteration) => ({ iteration, id: base ?? '' }),
    commit: (cp) => tip ?? cp.id,
    keep: (cp, candidateId) => candidateId ?? cp.id,
    revert: () => undefined,
  };
}

/** The user's `afterScore` guards (their FIX-level hooks ran at Stage 5.1), asked only when `active`. */
function afterScoreGuards(guards: readonly Guard[], active: boolean): Guard[] {
  type AfterScore = NonNullable<Guard['afterScore']>;
  return guards.flatMap((g) => {
    const hook = g.afterScore;
    if (!hook || !active) return [];
    return [{ name: g.name, afterScore: (input: Parameters<AfterScore>[0]) => hook.call(g, input) }];
  });
}

/** What the engine did with iteration `iter`: its row and, when a stop policy or a halt fired, why. */
export interface IterationVerdict {
  readonly row: IterationRecord;
  readonly stop: StopDecision | undefined;
}

/**
 * Stage 5.3 through the core engine (issue 26): a loop over collie's pieces, resumed from its
 * rows (loop-results.jsonl) and state store (loop-state.json), is asked for one trial and told the
 * iteration's FIXes; the engine runs the trigger (`rerun.log`), scores it with the run spec's
 * `scalar_extraction`, asks {@link collieKeepPolicy} and the user's `afterScore` guards, appends
 * the row, then checks SC1-SC5 and the user's stop policies over its rows (collie's counters:
 * {@link collieStopState}). The loop is then stopped (reason `host` when nothing fired), so the
 * state store's last write says whether the run stops. A step redone after a kill finds its row
 * and only re-checks the stop policies.
 */
export async function evaluateIteration(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
  candidate: CollieCandidate,
  ledger: { readonly base: string | null; readonly tip: string | null },
): Promise<IterationVerdict> {
  const n = state.iter;
  const results = createCollieResultsLog(rp.loopResults, state.baseline_scalar);
  const rows = await results.read();
  const existing = rows.find((r) => candidateOf(r)?.iter === n);
  const goal = spec.primary_goal;
  const tokens = Math.max(state.tokens_used, await readTokensUsed(rp.tokens));
  const factsOf = (history: readonly IterationRecord[]) => ({
    ...c.stopFacts(state, spec),
    iterations: factsOfRows(history, goal),
    tokensUsed: tokens,
  });
  const prior = collieStopState(factsOf(rows), state.started_at, c.options.clock.now());
  let armed = existing !== undefined; // the stop checks belong after this iteration's row (seed 000 Stage 6)
  const stop: StopPolicy = {
    name: 'collie-stop-checks',
    check: (s) => {
      if (!armed) return undefined;
      const collie = collieStopState(factsOf(s.history), state.started_at, c.options.clock.now());
      return evaluateStopChecks(collie, [...stopChecks(), ...c.policies.stop], c.options.stop.policyStatus)?.decision;
    },
  };
  const incumbent = Number.isFinite(prior.best) ? prior.best : candidate.before;
  const loop = createLoop({
    harness: await c.triggerHarness(state, spec, rp, rp.iter(n).rerunLog, { monitor: false }),
    scorer: c.scalarScorer(spec),
    rollback: deferredRollback(ledger.base, ledger.tip),
    keep: {
      policy: collieKeepPolicy(goal, candidate, incumbent, c.policies.keepPolicy),
      guards: afterScoreGuards(c.policies.guards, incumbent !== null && candidate.fixes.length > 0),
    },
    stop,
    results,
    stateStore: createJsonStateStore(rp.loopState),
    clock: c.options.clock,
    cost: () => ({ tokens }),
  });
  let row = existing;
  let stopped: LoopSummary | undefined;
  try {
    const trial = await loop.ask();
    if (row === undefined) {
      armed = true;
      const description = `iter-${n}: ${candidate.fixes.map((f) => f.id).join(', ')}`;
      const told = await loop.tell(trial, { description, data: { collie: candidate } });
      row = told.records[0];
      stopped = told.stopped;
    }
    stopped ??= await loop.stop('continue');
  } catch (error) {
    if (!isLoopError(error, 'LOOP_STOPPED')) throw error;
    stopped = error.details.summary as LoopSummary;
  }
  if (row === undefined) {
    const message = `[loop] [collie] the engine wrote no row for iter-${n} to ${rp.loopResults}; rerun the step`;
    throw new LoopError('RESULTS_CORRUPT', message);
  }
  return { row, stop: stopped === undefined || stopped.stop.reason === 'host' ? undefined : stopped.stop };
}

/**
 * The engine's verdict on iteration `iter`, read back at Stage 6: its row in loop-results.jsonl
 * and the stop the state store's last write records (none when it stopped with reason `host`).
 *
 * @throws {LoopError} `RESULTS_CORRUPT` when Stage 5.3 left no row for `iter` (restore
 *   loop-results.jsonl, or set state.json back to stage `rerun` to rerun the iteration).
 */
export async function readVerdict(state: RunState, rp: RunPaths): Promise<IterationVerdict> {
  const rows = await createCollieResultsLog(rp.loopResults, state.baseline_scalar).read();
  const row = rows.find((r) => candidateOf(r)?.iter === state.iter);
  if (row === undefined) {
    const what = `${rp.loopResults} has no row for iter-${state.iter}, which state.json says is done`;
    const fix = 'restore it, or set state.json status "running", stage "rerun" to rerun the iteration';
    throw new LoopError('RESULTS_CORRUPT', `[loop] [collie] ${what}; ${fix}`, { details: { path: rp.loopResults } });
  }
  const saved = await createJsonStateStore(rp.loopState).read();
  const stopped = saved?.status === 'stopped' && saved.iteration === row.iteration && saved.stopReason !== 'host';
  return { row, stop: stopped ? { reason: saved.stopReason!, message: saved.stopMessage ?? '' } : undefined };
}
