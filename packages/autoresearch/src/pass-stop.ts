import { costBudget, maxIterations, type IterationRecord, type LoopState, type StopPolicy } from '@loop/core';
import type { PassConfig } from './config.js';
import { formatScore } from './format.js';
import type { PassScore, Tier1Gates } from './pass-harness.js';
import type { PassRun } from './pass-run.js';
import { statusOf } from './pass-results-log.js';
import { consecutiveReverts } from './statuses.js';

/** The incumbent row of `state`: the last baseline or kept row. */
function incumbentOf(history: readonly IterationRecord[]): IterationRecord | undefined {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.status === 'kept' || history[i]!.status === 'baseline') return history[i];
  return undefined;
}

/**
 * The best version's full score: this call's own score of it, else (after a resume) the row's
 * composite and dimensions with the Tier-1 gates re-measured on resume (never assumed green).
 */
export function bestScoreOf(state: Pick<LoopState, 'history' | 'best'>, run: PassRun): PassScore | undefined {
  const row = incumbentOf(state.history);
  if (!row) return undefined;
  if (run.resumeCheck?.iteration === row.iteration) {
    const gates: Tier1Gates | undefined = run.resumeCheck.gates;
    return { composite: state.best, dimensions: row.dimensions ?? {}, ...(gates ? { gates } : {}) };
  }
  return run.scores.get(row.iteration) ?? { composite: state.best, dimensions: row.dimensions ?? {} };
}

/**
 * Seed 002's stop conditions over the engine's state, in the seed's order after the human
 * interrupt (which the engine checks first): the cost brake (`cost_limits.max_per_run_usd`, from
 * `LoopOptions.cost`; reason `cost-brake`), target met (`targetMet` on the best version; reason
 * `target-met`), plateau (`max_consecutive_reverts` reverted / reverted-redtest / crash rows in a
 * row, only kept resets: {@link consecutiveReverts} over the rows' statuses; reason `plateau`),
 * and the iteration cap (`max_iterations`, counting rows from before a resume; reason
 * `max-iterations`).
 */
export function passStopPolicy(o: { config: PassConfig; run: PassRun; targetMet: (best: PassScore, config: PassConfig) => boolean; maxPerRunUsd?: number }): StopPolicy {
  const { config } = o;
  const budget = o.maxPerRunUsd !== undefined ? costBudget({ maxUsd: o.maxPerRunUsd }) : undefined;
  const cap = maxIterations(config.maxIterations);
  return {
    name: `autoresearch-${config.mode}-stop`,
    check: (s) => {
      if (budget?.check(s)) return { reason: 'cost-brake', message: `spent ${(s.cost?.usd ?? 0).toFixed(2)} USD of max_per_run_usd ${o.maxPerRunUsd}` };
      const best = bestScoreOf(s, o.run);
      if (best && o.targetMet(best, config)) return { reason: 'target-met', message: `best ${formatScore(s.best)} meets kpi_target ${config.kpiTarget}` };
      const reverts = consecutiveReverts(s.history.map(statusOf));
      if (reverts >= config.maxConsecutiveReverts) return { reason: 'plateau', message: `${reverts} consecutive reverts (max_consecutive_reverts ${config.maxConsecutiveReverts})` };
      const d = cap.check(s);
      return d ? { reason: 'max-iterations', message: `reached max_iterations ${config.maxIterations}` } : undefined;
    },
  };
}
