import type { LoopState } from './loop-state.js';
import { isBetter } from './scorer.js';

/** Why a loop stopped. Stable strings, recorded in state.json and the summary. */
export type StopReasonCode =
  | 'max-iterations'
  | 'plateau'
  | 'target-reached'
  | 'wall-clock'
  | 'aborted'
  | 'restore-failed'
  | 'error'
  | (string & {});

/** A decision to stop, with a human-readable message. */
export interface StopDecision {
  /** Stable reason code. */
  readonly reason: StopReasonCode;
  /** One line for people. */
  readonly message: string;
}

/**
 * Looks at the loop state after each iteration and returns a reason to stop, or `undefined` to
 * go on. Must be pure with respect to the state (no I/O), so a policy test runs in microseconds.
 */
export interface StopPolicy {
  /** Used in logs. */
  readonly name: string;
  /** Returns a reason to stop, or `undefined`. */
  readonly check: (state: LoopState) => StopDecision | undefined;
}

/** Never stops: run until interrupted (seed 003: "LOOP FOREVER" until the user interrupts). */
export function neverStop(): StopPolicy {
  return { name: 'never', check: () => undefined };
}

/**
 * Stops after `n` iterations in total (the baseline is iteration 0 and does not count).
 * Counts rows from before a resume too, so a resumed run does not exceed `n`.
 */
export function maxIterations(n: number): StopPolicy {
  return {
    name: `max-iterations(${n})`,
    check: (s) =>
      s.iteration >= n
        ? { reason: 'max-iterations', message: `reached ${n} iteration${n === 1 ? '' : 's'}` }
        : undefined,
  };
}

/**
 * Stops after `n` consecutive iterations without a kept change (reverted, rejected and crash all
 * count; only a kept iteration resets the count). Seed 003: "用户中断或连续 N 次无改进".
 */
export function plateau(n: number): StopPolicy {
  return {
    name: `plateau(${n})`,
    check: (s) =>
      s.consecutiveNonImprovements >= n
        ? { reason: 'plateau', message: `${n} iterations in a row without improvement` }
        : undefined,
  };
}

/** Stops once the best score reaches `target` (equal counts as reached) in the loop's direction. */
export function targetScore(target: number): StopPolicy {
  return {
    name: `target(${target})`,
    check: (s) =>
      s.best === target || isBetter(s.best, target, s.direction)
        ? { reason: 'target-reached', message: `best ${s.best} reached target ${target}` }
        : undefined,
  };
}

/** Stops once `budgetMs` of wall-clock time (injected clock) has passed since this run started. */
export function wallClock(budgetMs: number): StopPolicy {
  return {
    name: `wall-clock(${budgetMs}ms)`,
    check: (s) =>
      s.now - s.startedAt >= budgetMs
        ? { reason: 'wall-clock', message: `wall-clock budget of ${budgetMs} ms used` }
        : undefined,
  };
}

/** Stops when the loop's abort signal (or `signal`, if given) is aborted. */
export function onAbort(signal?: AbortSignal): StopPolicy {
  return {
    name: 'abort',
    check: (s) =>
      (signal ?? s.signal).aborted ? { reason: 'aborted', message: 'stopped by abort signal' } : undefined,
  };
}

/** A policy that stops when any of `policies` does (the first one's reason wins). */
export function anyOf(...policies: StopPolicy[]): StopPolicy {
  return {
    name: `anyOf(${policies.map((p) => p.name).join(', ')})`,
    check: (s) => {
      for (const p of policies) {
        const d = p.check(s);
        if (d) return d;
      }
      return undefined;
    },
  };
}
