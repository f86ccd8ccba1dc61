import { writeTextAtomic } from '@loop/core/files';
import { findCommitByTrailer, revertCommits } from '@loop/rollback-git/git';
import { REVERT_TRAILER } from '../trailers.js';
import type { RunEndEvent } from '../run-end-notifier.js';
import type { RunPaths } from '../paths.js';
import type { IterationEntry, RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import { readLedger, type FlowLedger } from '../stage-files.js';
import { convergenceEpsilon, STOP_CHECK_STATUS } from '../stop-checks.js';
import { rollbackOf } from '../collie-rows.js';
import { readVerdict, type IterationVerdict } from './iteration-loop.js';
import { readTokensUsed } from '../token-meter.js';
import { switchAnchor } from '../task-anchors.js';
import type { StageContext } from './stage-context.js';
import type { AutoiterStepOutcome } from './step-outcome.js';
import { summaryText } from './stage-rerun.js';

const DECISION: Record<string, string> = {
  SC1: 'stop_cap',
  SC2: 'stop_converged',
  SC3: 'stop_converged',
  SC4: 'stop_budget',
  SC5: 'stop_escalated',
};
const EVENT: Record<string, RunEndEvent> = {
  converged: 'autoiter_done',
  budget_exhausted: 'budget_exhausted',
  escalated: 'escalated',
};

/**
 * Stage 6 rollback: carries out what the engine decided at Stage 5.3 (its row, {@link rollbackOf}:
 * the matrix's per-FIX reverts, or every applied FIX when the user's keep policy or an
 * `afterScore` guard said no). Each reverted FIX's single commit (everything its agent did, own
 * commits folded in by Stage 5.1) is reverted as `git revert --no-commit` does, then one commit
 * (trailer `Collie-Revert: iter-N`) records them all (`revertCommits` of @loop/rollback-git). A
 * restarted step finds that commit by its trailer and never reverts twice. Not kept: the row says
 * `<matrix row> · <policy>: <reason> · revert all`.
 */
async function rollback(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
  verdict: IterationVerdict,
): Promise<{ state: RunState; halt: string | null }> {
  const n = state.iter;
  const entry = state.iterations.find((i) => i.iter === n);
  if (!entry || entry.rollback) return { state, halt: null };
  const ledger: FlowLedger = (await readLedger(rp.iter(n).flow)) ?? { base: null, applied: [], applying: null };
  const applied = ledger.applied.filter((a): a is typeof a & { commit: string } => a.commit !== null);
  if (applied.length === 0) return { state, halt: null };
  const decided = rollbackOf(verdict.row, spec.primary_goal);
  const { revert, row, why } = decided;
  let commit: string | null = null;
  const reverted = applied.filter((a) => revert.includes(a.id)).map((a) => ({ id: a.id, commit: a.commit }));
  if (reverted.length > 0) {
    const ctx = await c.gitCtx(rp);
    const subject =
      why === null
        ? `chore: revert optimization FIX(es) due to scalar regression (iter-${n})`
        : `chore: revert FIX(es) not kept by ${why.split(':')[0]} (iter-${n})`;
    commit = await findCommitByTrailer(ctx, ledger.base!, REVERT_TRAILER, `iter-${n}`);
    // revertCommits drops a half-done revert of an interrupted step first (git reset --merge).
    commit ??= await revertCommits(
      ctx,
      reverted.map((r) => r.commit),
      `${subject}\n\n${reverted.map((r) => `Reverts ${r.id} ${r.commit}`).join('\n')}\n${REVERT_TRAILER}: iter-${n}`,
    );
    await c.logOnce(
      rp,
      `iter-${n}/rollback`,
      `Rollback (${row}): reverted ${reverted.map((r) => r.id).join(', ')} in ${commit.slice(0, 12)}.`,
    );
  }
  const next: IterationEntry = { ...entry, rollback: { row, reverted, commit } };
  return {
    state: { ...state, iterations: state.iterations.map((i) => (i.iter === n ? next : i)) },
    halt: decided.halt,
  };
}

/**
 * Stage 6 (seed 000): the rollback the engine's keep policy decided, then the stop the engine's
 * stop check found over its rows at Stage 5.3 (SC1-SC5, hybrid OR, order SC2, SC3, SC5, SC4, SC1,
 * then the user's stop policies, status `stop.policyStatus`); an `afterScore` halt stops `escalated`.
 * Stop: summary.md decision, status.md `DONE · ...`, user-log, notify, state.json terminal status
 * (the completion signal is left to the §3.5 terminal branch). Continue: iter + 1, status running.
 */
export async function stageRollbackStop(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  const n = state.iter;
  const id = state.runId;
  await switchAnchor(c.tasks(rp, id), n, 6);
  const engine = await readVerdict(state, rp);
  const rolled = await rollback(c, state, spec, rp, engine);
  state = { ...rolled.state, tokens_used: Math.max(rolled.state.tokens_used, await readTokensUsed(rp.tokens)) };
  const facts = c.stopFacts(state, spec);
  const halted =
    rolled.halt === null
      ? undefined
      : { decision: { reason: 'guard-halt', message: rolled.halt }, status: 'escalated' as const };
  const stop =
    engine.stop === undefined
      ? undefined
      : { decision: engine.stop, status: STOP_CHECK_STATUS[engine.stop.reason] ?? c.options.stop.policyStatus };
  const verdict = halted ?? stop;
  const entry = state.iterations.find((i) => i.iter === n);
  const convergence =
    entry?.scalar_delta !== null &&
    entry?.scalar_delta !== undefined &&
    Math.abs(entry.scalar_delta) <= convergenceEpsilon(facts);
  if (verdict) {
    const reason = `${verdict.decision.reason}: ${verdict.decision.message}`;
    if (entry)
      await writeTextAtomic(
        rp.iter(n).summary,
        summaryText(n, entry, convergence, DECISION[verdict.decision.reason] ?? 'stop'),
      );
    const total =
      state.last_scalar !== null && state.baseline_scalar !== null ? state.last_scalar - state.baseline_scalar : 'none';
    await c.observe(
      rp,
      `DONE · ${reason} · scalar=${state.last_scalar ?? 'none'} ` +
        `(baseline=${state.baseline_scalar ?? 'none'}, Δ=${total})`,
      `## done · ${c.iso()}\nStopped: ${reason}. Final status ${verdict.status}.`,
      `iter-${n}/done`,
    );
    if (verdict.decision.reason === 'SC5')
      await c.effectOnce(`iter-${n}/done/escalate`, () => c.escalate('stop_steps_counter', id));
    await c.effectOnce(`iter-${n}/done/notify`, () =>
      c.notifier.notify({ event: EVENT[verdict.status] ?? 'escalated', runId: id, statusFile: rp.status }),
    );
    await c.persist(rp, { ...state, status: verdict.status, should_continue: false, stop_reason: reason });
    c.tick(id, `Stage 6 → STOP (${reason})`);
    return { kind: 'stage', runId: id, iter: n, stage: 'stage6', status: verdict.status };
  }
  if (entry) await writeTextAtomic(rp.iter(n).summary, summaryText(n, entry, convergence, 'continue'));
  await c.persist(rp, { ...state, iter: n + 1, status: 'running', stage: 'kickoff' });
  c.tick(id, `Stage 6 → continue to iter-${n + 1}`);
  return { kind: 'stage', runId: id, iter: n, stage: 'stage6', status: 'running' };
}
