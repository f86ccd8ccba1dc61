import { anyOf, maxIterations, type LoopState, type StopDecision, type StopPolicy } from '@loop/core';
import { convergence, costBudget, noFileChanges, repeatedError, targetScore, wallClock } from '@loop/core/policies';
import type { CollieStopState } from './collie-stop-state.js';

export { collieStopState } from './collie-stop-state.js';
export type { CollieStopState, IterationFacts } from './collie-stop-state.js';

/** The terminal statuses of state.json (seed 000 §3.5). */
export type TerminalStatus = 'converged' | 'budget_exhausted' | 'escalated';

function facts(s: LoopState): CollieStopState['collie'] | undefined {
  return 'collie' in s ? (s as CollieStopState).collie : undefined;
}

type Facts = CollieStopState['collie'];

/**
 * An SC check: core's policy decides (`check`), the decision carries the seed's SC id as its
 * reason and collie's message (state.json `stop_reason`, status.md and the CLI show it).
 */
function asSc(
  id: string,
  check: (s: LoopState, c: Facts) => StopDecision | undefined,
  message: (d: StopDecision, s: LoopState, c: Facts) => string,
): StopPolicy {
  return {
    name: id,
    check: (s) => {
      const c = facts(s);
      const d = c === undefined ? undefined : check(s, c);
      return d === undefined || c === undefined ? undefined : { reason: id, message: message(d, s, c) };
    },
  };
}

/** SC1 (seed 000 Stage 6): iter ≥ max_iterations → budget_exhausted. Core's `maxIterations`. */
export function sc1IterationCap(): StopPolicy {
  return asSc(
    'SC1',
    (s, c) => maxIterations(c.maxIterations).check(s),
    (_d, s, c) => `iteration cap reached (${s.iteration} >= ${c.maxIterations})`,
  );
}

/**
 * SC2: all_green reached (criterion all_green: the last rerun's `gates.all_green`) OR the last
 * iteration's scalar ≥ threshold (criterion scalar_threshold: core's `targetScore` on the last
 * scalar) → converged.
 */
export function sc2Threshold(): StopPolicy {
  return asSc(
    'SC2',
    (s, c) => {
      const last = s.history.at(-1);
      if (last === undefined || last.iteration === 0) return undefined;
      if (c.successCriterion.type === 'all_green')
        return last.gates?.all_green === true ? { reason: 'all-green', message: 'all green' } : undefined;
      const t = c.successCriterion.threshold;
      if (c.successCriterion.type !== 'scalar_threshold' || t === null || last.score === null) return undefined;
      return targetScore(t).check({ ...s, best: last.score });
    },
    (d, s, c) =>
      d.reason === 'all-green'
        ? 'all green'
        : `scalar ${s.history.at(-1)?.score} >= threshold ${c.successCriterion.threshold}`,
  );
}

/** The SC3 ε: 0 for integer 1-5 scalars, 0.01 × |baseline| for continuous ones. */
export function convergenceEpsilon(c: CollieStopState['collie']): number {
  const values = [c.baselineScalar, ...c.iterations.map((i) => i.scalar)].filter((v): v is number => v !== null);
  const kind =
    c.scalarKind ??
    (values.length > 0 && values.every((v) => Number.isInteger(v) && v >= 1 && v <= 5) ? 'ordinal' : 'continuous');
  return kind === 'ordinal' ? 0 : 0.01 * Math.abs(c.baselineScalar ?? 0);
}

/**
 * SC3: the last two iterations both have |scalar_delta| ≤ ε → converged. Core's `convergence`
 * over the scores (`{ window: 2, minDelta: ε, measure: 'score' }`: the steps between the last
 * three scored rows, baseline included), after checking both deltas exist.
 */
export function sc3Convergence(): StopPolicy {
  return asSc(
    'SC3',
    (s, c) => {
      const lastTwo = c.iterations.slice(-2);
      if (lastTwo.length < 2 || lastTwo.some((i) => i.delta === null)) return undefined;
      return convergence({ window: 2, minDelta: convergenceEpsilon(c), measure: 'score' }).check(s);
    },
    (_d, _s, c) => `converged: last two |delta| <= ${convergenceEpsilon(c)}`,
  );
}

/**
 * SC4: tokens_used ≥ max_tokens (core `costBudget` on `cost.tokens`) OR elapsed ≥ max_wallclock_min (core `wallClock`);
 * `unlimited` never fires → budget_exhausted.
 */
export function sc4Budget(): StopPolicy {
  return asSc(
    'SC4',
    (s, c) => {
      const parts: StopPolicy[] = [];
      if (c.maxTokens !== null) parts.push(costBudget({ maxTokens: c.maxTokens }));
      if (c.maxWallclockMin !== null) parts.push(wallClock(c.maxWallclockMin * 60_000));
      return parts.length === 0 ? undefined : anyOf(...parts).check(s);
    },
    (d, _s, c) =>
      d.reason === 'cost-budget'
        ? `token budget used (${c.tokensUsed} >= ${c.maxTokens})`
        : `wall-clock budget of ${c.maxWallclockMin} min used`,
  );
}

/**
 * SC5 (stop-steps-counter): the same error three iterations in a row (core `repeatedError(3)`), or no file changes five
 * in a row (core `noFileChanges(5)`) → escalated.
 */
export function sc5StuckSteps(): StopPolicy {
  return asSc(
    'SC5',
    (s) => anyOf(repeatedError(3), noFileChanges(5)).check(s),
    (d, _s, c) =>
      d.reason === 'repeated-error'
        ? `same error three times: ${c.iterations.at(-1)?.errorSignature}`
        : 'no file changes five times',
  );
}

/** The terminal status each SC maps to (seed 000 Stage 6). */
export const STOP_CHECK_STATUS: Readonly<Record<string, TerminalStatus>> = {
  SC1: 'budget_exhausted',
  SC2: 'converged',
  SC3: 'converged',
  SC4: 'budget_exhausted',
  SC5: 'escalated',
};

/**
 * SC1-SC5 as one list (hybrid OR). Order: SC2, SC3, SC5, SC4, SC1, so a run that reaches its
 * threshold on its last allowed iteration is `converged`, not `budget_exhausted` (the seed does not
 * say which wins; this is our choice).
 */
export function stopChecks(): StopPolicy[] {
  return [sc2Threshold(), sc3Convergence(), sc5StuckSteps(), sc4Budget(), sc1IterationCap()];
}

/**
 * Runs the checks in order; the first decision wins, mapped to its terminal status (an SC id by
 * {@link STOP_CHECK_STATUS}, any other reason, e.g. a user's own policy, to `otherStatus`).
 */
export function evaluateStopChecks(
  state: CollieStopState,
  policies: readonly StopPolicy[] = stopChecks(),
  otherStatus: TerminalStatus = 'escalated',
): { decision: StopDecision; status: TerminalStatus } | undefined {
  for (const p of policies) {
    const decision = p.check(state);
    if (decision) return { decision, status: STOP_CHECK_STATUS[decision.reason] ?? otherStatus };
  }
  return undefined;
}
