import { maxIterations, type IterationRecord, type LoopState, type StopPolicy } from '@loop/core';
import { costBudget } from '@loop/core/policies';
import type { PassConfig } from './config.js';
import { formatScore } from './format.js';
import type { PassScore, Tier1Gates } from './pass-harness.js';
import { passData } from './pass-engine.js';

/** The incumbent row of `state`: the last baseline or kept row. */
function incumbentOf(history: readonly IterationRecord[]): IterationRecord | undefined {
  for (let i = history.length - 1; i >= 0; i--)
    if (history[i]!.status === 'kept' || history[i]!.status === 'baseline') return history[i];
  return undefined;
}

/** Full scores the engine's rows do not carry: the baseline's, and the Tier-1 gates re-measured on resume. */
export interface ScoresBeyondRows {
  /** The baseline's full score (the engine's baseline row carries no `data`). */
  readonly baseline?: PassScore;
  /** Function mode on resume: the gates re-measured on the restored best, and its id. */
  readonly resumed?: { readonly id: string; readonly gates?: Tier1Gates };
}

/**
 * The best version's full score: the one its row's record carries (`data.autoresearchScore`), else
 * the baseline's, else (a row read back on resume) the row's composite and dimensions with the
 * Tier-1 gates re-measured on resume (never assumed green).
 */
export function bestScoreOf(
  state: Pick<LoopState, 'history' | 'best'>,
  beyond: () => ScoresBeyondRows,
): PassScore | undefined {
  const row = incumbentOf(state.history);
  if (!row) return undefined;
  const own = passData(row).autoresearchScore;
  if (own) return own;
  const { baseline, resumed } = beyond();
  if (resumed !== undefined && resumed.id === row.candidateId) {
    return {
      composite: state.best,
      dimensions: row.dimensions ?? {},
      ...(resumed.gates ? { gates: resumed.gates } : {}),
    };
  }
  if (row.status === 'baseline' && baseline) return baseline;
  return { composite: state.best, dimensions: row.dimensions ?? {} };
}

/**
 * Seed 002's stop conditions over the engine's state, in the seed's order after the human
 * interrupt (which the engine checks first): the cost brake (`cost_limits.max_per_run_usd`, from
 * `LoopOptions.cost`; reason `cost-brake`), target met (`targetMet` on the best version; reason
 * `target-met`), plateau (`max_consecutive_reverts` reverted / reverted-redtest / crash rows in a
 * row, only kept resets: the engine's `consecutiveNonImprovements`; reason `plateau`),
 * and the iteration cap (`max_iterations`, counting rows from before a resume; reason
 * `max-iterations`).
 */
export function passStopPolicy(o: {
  config: PassConfig;
  beyond: () => ScoresBeyondRows;
  targetMet: (best: PassScore, config: PassConfig) => boolean;
  maxPerRunUsd?: number;
}): StopPolicy {
  const { config } = o;
  const budget = o.maxPerRunUsd !== undefined ? costBudget({ maxUsd: o.maxPerRunUsd }) : undefined;
  const cap = maxIterations(config.maxIterations);
  return {
    name: `autoresearch-${config.mode}-stop`,
    check: (s) => {
      if (budget?.check(s))
        return {
          reason: 'cost-brake',
          message: `spent ${(s.cost?.usd ?? 0).toFixed(2)} USD of max_per_run_usd ${o.maxPerRunUsd}`,
        };
      const best = bestScoreOf(s, o.beyond);
      if (best && o.targetMet(best, config))
        return { reason: 'target-met', message: `best ${formatScore(s.best)} meets kpi_target ${config.kpiTarget}` };
      const reverts = s.consecutiveNonImprovements;
      if (reverts >= config.maxConsecutiveReverts)
        return {
          reason: 'plateau',
          message: `${reverts} consecutive reverts (max_consecutive_reverts ${config.maxConsecutiveReverts})`,
        };
      const d = cap.check(s);
      return d ? { reason: 'max-iterations', message: `reached max_iterations ${config.maxIterations}` } : undefined;
    },
  };
}
