import { anyOf, maxIterations, type StopPolicy } from '@loop/core';
import { costBudget, noFileChanges, plateau, targetScore, wallClock } from '@loop/core/policies';
import type { ParsedAutoIterateOptions } from './auto-iterate-schema.js';

/**
 * The run's stop policy from `stop`: any of max iterations (0: none), plateau, no file changes
 * (0: none), target score, wall clock, the cost and token budgets (predictive, over the rows'
 * `data.cost`, a row without its cost stops the run) and the user's own `policy`.
 */
export function autoIterateStopPolicy(stop: ParsedAutoIterateOptions['stop']): StopPolicy {
  const stops: StopPolicy[] = [];
  if (stop.maxIterations > 0) stops.push(maxIterations(stop.maxIterations));
  if (stop.plateau !== undefined) stops.push(plateau(stop.plateau));
  if (stop.stopAfterNoChange > 0) stops.push(noFileChanges(stop.stopAfterNoChange));
  if (stop.targetScore !== undefined) stops.push(targetScore(stop.targetScore));
  if (stop.wallClockS !== undefined) stops.push(wallClock(stop.wallClockS * 1000));
  if (stop.costBudget !== undefined || stop.tokenBudget !== undefined) {
    stops.push(
      costBudget({
        ...(stop.costBudget !== undefined ? { maxUsd: stop.costBudget } : {}),
        ...(stop.tokenBudget !== undefined ? { maxTokens: stop.tokenBudget } : {}),
        source: 'history',
        predictive: true,
        requireCost: true,
      }),
    );
  }
  if (stop.policy) stops.push(stop.policy);
  return anyOf(...stops);
}
