import type { RunPaths } from '../paths.js';
import type { RunState } from '../run-state.js';
import { triggerTimeoutMin, type RunSpec } from '../run-spec.js';
import type { StageContext } from './stage-context.js';
import type { AutoiterStepOutcome } from './step-outcome.js';

/** The warning for a run whose log has no line the scalar regex matches; also printed as a tick. */
export function noScalarWarning(pattern: string, log: string, c: StageContext, runId: string, n: number): string {
  const text =
    `Warning: trigger.scalar_extraction /${pattern}/ matched no line of ` +
    `iter-${n}/${log}: the scalar is none (SC2's threshold and SC3 cannot use ` +
    `it). Check the trigger's output or the regex.`;
  c.tick(runId, `iter-${n} ${text}`);
  return text;
}

/**
 * Stage 2 (seed 000): runs the trigger in the worktree under the seed's timeout
 * (min(max_wallclock_min / max_iterations, 30) min), output to iter-N/raw.log followed by
 * `EXIT_CODE:<n>`. The monitor watches raw.log while it runs; a blocking pattern kills the whole
 * process group (SIGTERM, SIGKILL after the grace: Stage 3.2 step 1) and raw.log gets `BLOCKING:`
 * and `KILLED:` lines. Iteration 1's scalar is the baseline.
 */
export async function stageTrigger(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  const n = state.iter;
  await c.observe(rp, `iter ${n}/${spec.budget.max_iterations} · Stage 2 · Running trigger · 0s elapsed`);
  c.tick(state.runId, `iter-${n} Stage 2 → trigger running (timeout: ${triggerTimeoutMin(spec)}min)`);
  const r = await c.triggerRun(state, spec, rp, rp.iter(n).rawLog);
  if (r.blockingLine !== null)
    c.tick(
      state.runId,
      `iter-${n} Stage 2 → blocking issue seen while running, trigger killed: ${r.blockingLine.slice(0, 120)}`,
    );
  if (r.scalar === null)
    await c.logOnce(
      rp,
      `iter-${n}/trigger/no-scalar`,
      noScalarWarning(spec.trigger.scalar_extraction, 'raw.log', c, state.runId, n),
    );
  const baseline = n === 1 && state.baseline_scalar === null ? r.scalar : state.baseline_scalar;
  await c.persist(rp, { ...state, baseline_scalar: baseline, stage: 'observe' });
  return { kind: 'stage', runId: state.runId, iter: n, stage: 'stage2', status: 'running' };
}
