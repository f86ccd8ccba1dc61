import type { Direction, MaybePromise } from './types.js';
import { improvement } from './scorer.js';

/** The keep decision for one candidate, with its reason (recorded in events). */
export interface KeepDecision {
  /** True to keep the candidate. */
  readonly keep: boolean;
  /** Why, for logs. */
  readonly reason: string;
}

/** What a keep policy decides on. */
export interface KeepInput {
  /** The candidate's score. */
  readonly candidate: number;
  /** The incumbent's (best kept) score. */
  readonly incumbent: number;
  /** Which way scores improve. */
  readonly direction: Direction;
}

/** Decides whether a scored candidate replaces the incumbent. */
export interface KeepPolicy {
  /** Used in logs. */
  readonly name: string;
  /** Returns the decision. */
  readonly decide: (input: KeepInput) => MaybePromise<KeepDecision>;
}

/**
 * Keeps only a strict improvement in the configured direction; an equal score reverts
 * (seed 001: "不变/下降 → git reset"; seed 002: strict improvement). The default.
 */
export function strictImprovement(): KeepPolicy {
  return minDelta(0);
}

/**
 * Keeps only an improvement greater than `delta` (in score units). `minDelta(0)` is strict improvement.
 */
export function minDelta(delta: number): KeepPolicy {
  return {
    name: delta === 0 ? 'strict-improvement' : `min-delta(${delta})`,
    decide: ({ candidate, incumbent, direction }) => {
      const gain = improvement(candidate, incumbent, direction);
      if (gain > delta) return { keep: true, reason: `improved by ${formatGain(gain)}` };
      if (gain === 0) return { keep: false, reason: 'equal score (equal reverts)' };
      return { keep: false, reason: gain > 0 ? `gain ${formatGain(gain)} not above ${delta}` : `worse by ${formatGain(-gain)}` };
    },
  };
}

function formatGain(x: number): string {
  return Number(x.toPrecision(6)).toString();
}
