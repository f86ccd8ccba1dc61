import type { StopPolicy } from './stop-policy.js';
import { improvement } from './scorer.js';

/** Options of {@link costBudget}; at least one limit. */
export interface CostBudgetOptions {
  /** Stop once `state.cost.usd` reaches this many US dollars (seed 002 `cost_limits.max_per_run_usd`). */
  readonly maxUsd?: number;
  /** Stop once `state.cost.tokens` reaches this many tokens (seed 000 SC4: tokens_used >= max_tokens). */
  readonly maxTokens?: number;
}

/**
 * Stops once the spend reported by `LoopOptions.cost` reaches a budget (equal counts as reached).
 * Reason `cost-budget`. A state without `cost` never stops.
 *
 * @throws {RangeError} when neither limit is given or a limit is not a positive finite number.
 */
export function costBudget(options: CostBudgetOptions): StopPolicy {
  const { maxUsd, maxTokens } = options;
  if (maxUsd === undefined && maxTokens === undefined) throw new RangeError('costBudget needs maxUsd or maxTokens');
  for (const v of [maxUsd, maxTokens]) if (v !== undefined && !(Number.isFinite(v) && v > 0)) throw new RangeError(`costBudget limits must be positive finite numbers, got ${v}`);
  return {
    name: `cost-budget(${[maxUsd !== undefined ? `$${maxUsd}` : '', maxTokens !== undefined ? `${maxTokens} tokens` : ''].filter(Boolean).join(', ')})`,
    check: (s) => {
      const usd = s.cost?.usd;
      const tokens = s.cost?.tokens;
      if (maxUsd !== undefined && usd !== undefined && usd >= maxUsd) return { reason: 'cost-budget', message: `spent $${usd.toFixed(2)} of a $${maxUsd} budget` };
      if (maxTokens !== undefined && tokens !== undefined && tokens >= maxTokens) return { reason: 'cost-budget', message: `used ${tokens} of a ${maxTokens}-token budget` };
      return undefined;
    },
  };
}

/** Options of {@link convergence}. */
export interface ConvergenceOptions {
  /** k: how many iterations back to compare the best with. */
  readonly window: number;
  /** The best must improve by more than this (score units) over `window` iterations to go on. @default 0 */
  readonly minDelta?: number;
  /**
   * What is compared: `best` (the best kept score `window` iterations ago vs now, seed 004's
   * exhaustion) or `score` (every step between the last `window` + 1 scored rows, absolute, seed 000
   * SC3: "last 2 iters: |scalar_delta| <= epsilon" is `{ window: 1, minDelta: epsilon, measure: 'score' }`). @default 'best'
   */
  readonly measure?: 'best' | 'score';
}

/**
 * Stops when the loop has converged: with `measure: 'best'`, the best kept score improved by no
 * more than `minDelta` over the last `window` iterations (reads `state.bestTrail`, O(1) per check);
 * with `measure: 'score'`, every change between the last `window` + 1 scored rows is at most
 * `minDelta` in absolute value (seed 000 SC3; O(window) per check). Needs at least `window`
 * iterations. Reason `convergence`.
 *
 * @throws {RangeError} for a window below 1 or a negative minDelta.
 */
export function convergence(options: ConvergenceOptions): StopPolicy {
  const { window } = options;
  const minDelta = options.minDelta ?? 0;
  if (!Number.isInteger(window) || window < 1) throw new RangeError(`convergence window must be a whole number >= 1, got ${window}`);
  if (!(minDelta >= 0)) throw new RangeError(`convergence minDelta must be >= 0, got ${minDelta}`);
  return {
    name: `convergence(${window}, ${minDelta})`,
    check: (s) => {
      if (options.measure === 'score') {
        const scores: number[] = [];
        for (let i = s.history.length - 1; i >= 0 && scores.length <= window; i--) {
          const v = s.history[i]!.score;
          if (v !== null) scores.push(v);
        }
        if (scores.length <= window) return undefined;
        const steps = scores.slice(1).map((v, i) => Math.abs(scores[i]! - v));
        const largest = Math.max(...steps);
        return largest <= minDelta ? { reason: 'convergence', message: `the score moved by at most ${largest} over the last ${window} scored iterations (needs > ${minDelta})` } : undefined;
      }
      const trail = s.bestTrail;
      if (!trail || s.iteration < window) return undefined;
      const now = trail[s.iteration];
      const then = trail[s.iteration - window];
      if (now === undefined || then === undefined) return undefined;
      const gain = improvement(now, then, s.direction);
      return gain <= minDelta ? { reason: 'convergence', message: `the best improved by ${gain} over the last ${window} iterations (needs > ${minDelta})` } : undefined;
    },
  };
}

/**
 * Stops after `n` crashes in a row with the same error message (`IterationRecord.error`): the loop
 * is hitting one wall, not exploring (seed 000 SC5: the same error x3).
 *
 * @throws {RangeError} for n below 1.
 */
export function repeatedError(n: number): StopPolicy {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`repeatedError needs a whole number >= 1, got ${n}`);
  return {
    name: `repeated-error(${n})`,
    check: (s) => {
      if ((s.consecutiveSameError ?? 0) < n) return undefined;
      const last = s.history.at(-1);
      return { reason: 'repeated-error', message: `${n} crashes in a row with the same error: ${last?.error ?? last?.description ?? ''}` };
    },
  };
}

/**
 * Stops after `n` iterations in a row whose proposal changed no file (`IterationRecord.changedFiles`
 * known and empty): the proposer has nothing left to try, or cannot write its targets (seed 000
 * SC5: no file changes x5). Reason `no-file-changes`; the message quotes the last row's
 * description (an agent proposer's says why it changed nothing).
 *
 * @throws {RangeError} for n below 1.
 */
export function noFileChanges(n: number): StopPolicy {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`noFileChanges needs a whole number >= 1, got ${n}`);
  return {
    name: `no-file-changes(${n})`,
    check: (s) => {
      if ((s.consecutiveNoChange ?? 0) < n) return undefined;
      const last = s.history.at(-1)?.description;
      const why = 'the proposer has nothing left to try, or cannot write its targets';
      return { reason: 'no-file-changes', message: `${n} iterations in a row changed no file: ${why}${last ? `; the last one: ${last}` : ''}` };
    },
  };
}
