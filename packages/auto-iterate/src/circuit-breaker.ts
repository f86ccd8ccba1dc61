import type { Advice, Advisor } from '@loop/core';

/** Options of {@link createCircuitBreaker}; counts are iterations in a row. */
export interface CircuitBreakerOptions {
  /** Crashes in a row that pause for a strategy review (seed 001: 连续 3 次 crash → 暂停，回顾策略). @default 3 */
  pauseAfterCrashes?: number;
  /** Non-improvements in a row that trigger one cool-down round (seed 001: 连续 5 次 discard → 冷却 1 轮). @default 5 */
  cooldownAfterDiscards?: number;
  /** Non-improvements in a row that emit a notify event (seed 003: 连续 10 次 discard → 考虑通知用户). @default 10 */
  notifyAfterDiscards?: number;
}

/** The hint a pause gives the proposer. */
export const STRATEGY_REVIEW_HINT =
  'Several crashes in a row: pause and review the strategy. Re-read the ' +
  'target and read-only files and results.tsv; make a smaller, safer ' +
  'change.';
/** The hint a cool-down round gives the proposer (seed 001: 暂停后恢复时优先尝试结构性改动). */
export const STRUCTURAL_CHANGE_HINT =
  'Many discards in a row: cool down and try a structural change (a ' +
  'different approach, not another small tweak of the same parameter).';

/**
 * Seed 001's circuit breaker (with seed 003's notify rule) as an advisor:
 * - `pauseAfterCrashes` crashes in a row: a `pause` advice with a strategy-review hint;
 * - every `cooldownAfterDiscards` iterations in a row without a keep (reverted, rejected and crash
 *   all count): a `cooldown` advice; the next iteration is the cool-down round, run with a hint to
 *   try a structural change;
 * - `notifyAfterDiscards` in a row: a `notify` advice for the host to tell the user.
 * The loop never stops on its own for these (seed 003: 绝不停止); stop policies decide that.
 */
export function createCircuitBreaker(options: CircuitBreakerOptions = {}): Advisor {
  const pause = options.pauseAfterCrashes ?? 3;
  const cooldown = options.cooldownAfterDiscards ?? 5;
  const notify = options.notifyAfterDiscards ?? 10;
  return {
    name: 'circuit-breaker',
    advise: (s) => {
      const out: Advice[] = [];
      if (s.consecutiveCrashes > 0 && s.consecutiveCrashes % pause === 0) {
        out.push({
          kind: 'pause',
          message: `${s.consecutiveCrashes} crashes in a row: pausing to review the strategy`,
          hints: [STRATEGY_REVIEW_HINT],
        });
      }
      const n = s.consecutiveNonImprovements;
      if (n > 0 && n % cooldown === 0) {
        out.push({
          kind: 'cooldown',
          message: `${n} iterations in a row without improvement: one cool-down round, then structural changes`,
          hints: [STRUCTURAL_CHANGE_HINT],
        });
      }
      if (n === notify) {
        out.push({
          kind: 'notify',
          message: `${n} iterations in a row without improvement: the metric may have no room left; consider stopping`,
          hints: [],
        });
      }
      return out;
    },
  };
}
