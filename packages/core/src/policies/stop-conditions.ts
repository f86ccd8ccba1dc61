import type { StopPolicy } from '../contracts/stop-policy.js';
import { improvement } from '../contracts/scorer.js';
import { describeSpend, formatUsd, spendOf } from './spend.js';

/** Options of {@link costBudget}; at least one limit. */
export interface CostBudgetOptions {
  /** Stop once the spend reaches this many US dollars (seed 002 `cost_limits.max_per_run_usd`). */
  readonly maxUsd?: number;
  /** Stop once the spend reaches this many tokens (seed 000 SC4: tokens_used >= max_tokens). */
  readonly maxTokens?: number;
  /**
   * Where the spend is read: `meter` is `state.cost` (`LoopOptions.cost`); `history` is the sum of
   * the rows' `data.cost` ({@link spendOf}: an agent proposer's usage), which a resume whose rows
   * carry their data keeps. @default 'meter'
   */
  readonly source?: 'meter' | 'history';
  /**
   * Also stop before a proposal the run cannot afford: when the spend plus the mean cost of one
   * proposal so far (spend / rows that carry a cost; with `meter`, / iterations) would go over a
   * limit. Ending exactly on the limit is allowed. @default false
   */
  readonly predictive?: boolean;
  /**
   * With `source: 'history'`: stop when the last row (a proposal that was evaluated, not a crash)
   * carries no cost: a budget whose spend cannot be read is not enforced, so the run stops rather
   * than spend without limit (an agent whose usage output was not recognised). @default false
   */
  readonly requireCost?: boolean;
}

/**
 * Stops once the spend reaches a budget (equal counts as reached), and with `predictive` before a
 * proposal whose expected cost (the mean so far) would take it over. Reason `cost-budget`; the
 * message says what was spent and, with `source: 'history'`, on what (kept / discarded / crashed
 * rows). A state without a spend never stops.
 *
 * @throws {RangeError} when neither limit is given or a limit is not a positive finite number.
 */
export function costBudget(options: CostBudgetOptions): StopPolicy {
  const { maxUsd, maxTokens, predictive = false, source = 'meter', requireCost = false } = options;
  if (maxUsd === undefined && maxTokens === undefined) throw new RangeError('costBudget needs maxUsd or maxTokens');
  for (const v of [maxUsd, maxTokens])
    if (v !== undefined && !(Number.isFinite(v) && v > 0))
      throw new RangeError(`costBudget limits must be positive finite numbers, got ${v}`);
  const limits = [maxUsd !== undefined ? `$${maxUsd}` : '', maxTokens !== undefined ? `${maxTokens} tokens` : '']
    .filter(Boolean)
    .join(', ');
  return {
    name: `cost-budget(${limits}${predictive ? ', predictive' : ''})`,
    check: (s) => {
      const last = s.history.at(-1);
      if (
        requireCost &&
        source === 'history' &&
        last &&
        last.iteration > 0 &&
        last.status !== 'crash' &&
        last.data?.cost === undefined
      ) {
        const message =
          `iteration ${last.iteration}'s proposal reported no cost (USD or ` +
          `tokens): the budget cannot be enforced, so the run stops; make the ` +
          `proposer report its usage (docs/agents-overnight.md)`;
        return { reason: 'cost-budget', message };
      }
      const spend = source === 'history' ? spendOf(s.history) : undefined;
      const usd = spend ? (spend.hasUsd ? spend.total.usd : undefined) : s.cost?.usd;
      const tokens = spend ? (spend.hasTokens ? spend.total.tokens : undefined) : s.cost?.tokens;
      const proposals = spend ? spend.total.rows : s.history.filter((r) => r.iteration > 0).length;
      const onWhat = spend ? describeSpend(spend) : undefined;
      const tail = onWhat ? `; ${onWhat}` : '';
      const check = (spent: number | undefined, max: number | undefined, show: (n: number) => string) => {
        if (max === undefined || spent === undefined) return undefined;
        if (spent >= max) return `spent ${show(spent)} of a ${show(max)} budget${tail}`;
        if (!predictive || proposals === 0) return undefined;
        const mean = spent / proposals;
        const pending = s.pending ?? 0; // started, not yet recorded: their cost is coming too
        if (spent + mean * (1 + pending) <= max) return undefined;
        const running = pending > 0 ? ` with ${pending} more running` : '';
        return (
          `spent ${show(spent)} of a ${show(max)} budget over ${proposals} ` +
          `proposals; the next one (mean ${show(mean)})${running} would go over ` +
          `it${tail}`
        );
      };
      if (!spend && !predictive) {
        // The meter's words, as collie's and autoresearch's stop messages have always read.
        if (maxUsd !== undefined && usd !== undefined && usd >= maxUsd)
          return { reason: 'cost-budget', message: `spent $${usd.toFixed(2)} of a $${maxUsd} budget` };
        if (maxTokens !== undefined && tokens !== undefined && tokens >= maxTokens)
          return { reason: 'cost-budget', message: `used ${tokens} of a ${maxTokens}-token budget` };
        return undefined;
      }
      const message =
        check(usd, maxUsd, formatUsd) ??
        check(tokens, maxTokens, (n) => `${Math.round(n).toLocaleString('en-US')} tokens`);
      return message ? { reason: 'cost-budget', message } : undefined;
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
   * SC3: "last 2 iters: |scalar_delta| <= epsilon" is `{ window: 1, minDelta: epsilon, measure: 'score' }`). @default
   * 'best'
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
  if (!Number.isInteger(window) || window < 1)
    throw new RangeError(`convergence window must be a whole number >= 1, got ${window}`);
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
        return largest <= minDelta
          ? {
              reason: 'convergence',
              message:
                `the score moved by at most ${largest} over the last ${window} scored ` +
                `iterations (needs > ${minDelta})`,
            }
          : undefined;
      }
      const trail = s.bestTrail;
      if (!trail || s.iteration < window) return undefined;
      const now = trail[s.iteration];
      const then = trail[s.iteration - window];
      if (now === undefined || then === undefined) return undefined;
      const gain = improvement(now, then, s.direction);
      return gain <= minDelta
        ? {
            reason: 'convergence',
            message: `the best improved by ${gain} over the last ${window} iterations (needs > ${minDelta})`,
          }
        : undefined;
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
      return {
        reason: 'repeated-error',
        message: `${n} crashes in a row with the same error: ${last?.error ?? last?.description ?? ''}`,
      };
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
      return {
        reason: 'no-file-changes',
        message: `${n} iterations in a row changed no file: ${why}${last ? `; the last one: ${last}` : ''}`,
      };
    },
  };
}
