import type { RecommendedAction } from './loop-state-file.js';
import type { RoundEvaluation, RoundPlan } from './round-worker.js';
import { exhaustedTargets, failedAttempts, type Scoreboard } from './scoreboard.js';

/** Input of {@link decideRecommendedAction}. */
export interface StopCriteriaInput {
  /** The round's plan (its targets). */
  plan: RoundPlan;
  /** The round's evaluation. */
  evaluation: RoundEvaluation;
  /** The scoreboard with this round's attempts already recorded. */
  scoreboard: Scoreboard;
  /** Task ids in the exclusions file before this round (consciously parked). */
  excluded: readonly string[];
  /** Failed attempts that exhaust a target (seed 004 "3+ times"). @default 3 */
  maxFailedAttempts?: number;
}

/** The analysis of a round: the action for loop_state.json and the tasks to park. */
export interface StopCriteriaDecision {
  /** `last_round.recommended_action`. */
  action: RecommendedAction;
  /** Why, in one line; becomes `stop_reason` after `<action>: ` when the loop stops. */
  reason: string;
  /** For `stop_exhausted`: the genuinely out-of-reach tasks to add to the exclusions file. Empty otherwise. */
  park: string[];
}

/**
 * Seed 004 "Stop Criteria", checked in this order:
 * 1. `stop_exhausted` when a targeted improvement failed `maxFailedAttempts`+ times, counted from
 *    the scoreboard, and its task still fails; those targets are parked.
 * 2. `stop_success` when every high/medium-priority task passes or is in the exclusions file
 *    (consciously parked). Tasks without a priority count as high.
 * 3. `stop_exhausted` when the plan had no actionable target (none outside the exclusions): no
 *    actionable fixes remain; the still-failing high/medium tasks are parked.
 * 4. `continue` otherwise: more targeted work is justified.
 */
export function decideRecommendedAction(input: StopCriteriaInput): StopCriteriaDecision {
  const threshold = input.maxFailedAttempts ?? 3;
  const excluded = new Set(input.excluded);
  const exhausted = exhaustedTargets(input.scoreboard, threshold).filter((id) => !excluded.has(id));
  if (exhausted.length > 0) {
    const list = exhausted.map((id) => `${id} (${failedAttempts(input.scoreboard, id)} failed attempts)`).join(', ');
    return {
      action: 'stop_exhausted',
      reason: `the same targeted improvement failed ${threshold}+ times: ${list}`,
      park: exhausted,
    };
  }
  const blocking = input.evaluation.tasks
    .filter((t) => (t.priority ?? 'high') !== 'low' && !t.passed && !excluded.has(t.id))
    .map((t) => t.id)
    .sort();
  const total = input.evaluation.tasks.length;
  const passed = input.evaluation.tasks.filter((t) => t.passed).length;
  if (blocking.length === 0) {
    return {
      action: 'stop_success',
      reason: `all high/medium-priority tasks are fixed or consciously parked (${passed}/${total} passing)`,
      park: [],
    };
  }
  const actionable = input.plan.targets.filter((id) => !excluded.has(id));
  if (actionable.length === 0) {
    return {
      action: 'stop_exhausted',
      reason: `no actionable fixes remain; still failing: ${blocking.join(', ')}`,
      park: blocking,
    };
  }
  return {
    action: 'continue',
    reason: `more targeted work is justified; still failing: ${blocking.join(', ')} (${passed}/${total} passing)`,
    park: [],
  };
}
