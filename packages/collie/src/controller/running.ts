import type { RunPaths } from '../paths.js';
import type { RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import { anchorStageOf, switchAnchor } from '../task-anchors.js';
import { AnchorDriftError } from './anchor-drift.js';
import type { StageContext } from './stage-context.js';
import type { AutoiterStepOutcome } from './step-outcome.js';
import { stageAudit } from './stage-audit.js';
import { stageFlow } from './stage-flow.js';
import { stageKickoff } from './stage-kickoff.js';
import { stageObserve, stageRecover } from './stage-observe.js';
import { stagePlan } from './stage-plan.js';
import { stageRerun } from './stage-rerun.js';
import { stageTrigger } from './stage-trigger.js';
import { stageTriage, stageVerify } from './stage-verify.js';

type Stage = (c: StageContext, state: RunState, spec: RunSpec, rp: RunPaths) => Promise<AutoiterStepOutcome>;

const STAGES: Readonly<Record<RunState['stage'], Stage>> = {
  kickoff: stageKickoff,
  trigger: stageTrigger,
  observe: stageObserve,
  recover: stageRecover,
  triage: stageTriage,
  verify: stageVerify,
  plan: stagePlan,
  flow: stageFlow,
  audit: stageAudit,
  rerun: stageRerun,
};

/**
 * Branch C `running`: runs the persisted stage of the iteration. Before a stage other than Stage 1
 * the task anchor is switched to it (the seed's TaskUpdate at a stage switch); a long dispatch
 * whose anchor check finds drift ({@link AnchorDriftError}) stops the iteration and escalates
 * `stage_anchor_drift` (seed 000 Stage 1 Step 0 item 4).
 */
export async function runningStage(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  if (state.stage !== 'kickoff') await switchAnchor(c.tasks(rp, state.runId), state.iter, anchorStageOf(state.stage));
  try {
    return await STAGES[state.stage](c, state, spec, rp);
  } catch (error) {
    if (!(error instanceof AnchorDriftError)) throw error;
    const n = state.iter;
    await c.escalateRun(
      state,
      rp,
      `iter ${n}/${spec.budget.max_iterations} · ${state.stage} · STAGE ANCHOR DRIFT`,
      'stage_anchor_drift',
      error.message,
      'escalated',
    );
    c.tick(state.runId, `iter-${n} ${state.stage} → stage anchor drift, escalated`);
    return { kind: 'stage', runId: state.runId, iter: n, stage: 'stage1', status: 'escalated' };
  }
}
