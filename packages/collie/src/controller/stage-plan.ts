import { writeTextAtomic } from '@loop/core/files';
import { readText } from '../internal/read-text.js';
import { renderFixPlan } from '../fix-plan.js';
import { checkNoProgress } from '../no-progress-check.js';
import type { RunPaths } from '../paths.js';
import type { RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import { planTaskText } from '../stage-files.js';
import type { StageContext } from './stage-context.js';
import type { AutoiterStepOutcome } from './step-outcome.js';

/**
 * Stage 5.0 (seed 000): G7 first (token-set Jaccard of this iteration's task text against
 * iter-(N-1)/fix-plan.md, bucket 1-5; bucket ≥ 4 with two consecutive zero deltas escalates
 * `loop_no_progress` and notifies `deadlock`), then fix-plan.md from the G8/G2-eligible FIX records
 * only (never reads source): metadata lines, DAG, details, impact, E2E inherited from the run spec.
 */
export async function stagePlan(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  const n = state.iter;
  const m = spec.budget.max_iterations;
  const ip = rp.iter(n);
  const id = state.runId;
  const eligible = await c.eligibleFixes(ip);
  const prev = n > 1 ? planTaskText((await readText(rp.iter(n - 1).fixPlan)) ?? '') : '';
  const noProgress = checkNoProgress(
    eligible.map((f) => f.fix_outline.trim()).join('\n'),
    prev,
    state.iterations.map((i) => i.scalar_delta),
  );
  if (noProgress.deadlock) {
    await writeTextAtomic(
      ip.summary,
      [
        `# Summary — iter-${n}`,
        `g7_jaccard: ${noProgress.ratio.toFixed(3)}`,
        `g7_bucket: ${noProgress.bucket}`,
        `g7_consecutive_delta0: ${noProgress.consecutiveDelta0}`,
        'decision: stop_escalated',
        '',
      ].join('\n'),
    );
    await c.escalateRun(
      state,
      rp,
      `iter ${n}/${m} · Stage 5.0 · G7 DEADLOCK · jaccard=${noProgress.ratio.toFixed(3)} bucket=${noProgress.bucket}`,
      'loop_no_progress',
      `G7 bucket ${noProgress.bucket} with ${noProgress.consecutiveDelta0} consecutive zero deltas`,
      'deadlock',
    );
    c.tick(id, `iter-${n} Stage 5.0 → G7 deadlock (bucket ${noProgress.bucket}), escalated`);
    return { kind: 'stage', runId: id, iter: n, stage: 'stage5.0', status: 'escalated' };
  }
  const e2e = [
    `trigger: ${spec.trigger.invocation}`,
    `success_criterion: ${spec.success_criterion.type}` +
      `${spec.success_criterion.threshold === null ? '' : ` ${spec.success_criterion.threshold}`}`,
    `primary_goal: ${spec.primary_goal}`,
  ].join('\n');
  await writeTextAtomic(ip.fixPlan, renderFixPlan(eligible, { planPath: ip.fixPlan, iter: n, e2e }));
  await c.observe(rp, `iter ${n}/${m} · Stage 5.0 · Building fix-plan · ${eligible.length} FIX eligible`);
  c.tick(id, `iter-${n} Stage 5.0 → fix-plan.md built (${eligible.length} FIX)`);
  await c.persist(rp, { ...state, stage: 'flow' });
  return { kind: 'stage', runId: id, iter: n, stage: 'stage5.0', status: 'running' };
}
