/**
 * A value or a promise of it. Contract members return `MaybePromise` so that a synchronous fake
 * needs no `async`.
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Which way a score improves. `minimize`: lower is better (loss, val_bpc, latency in ms).
 * `maximize`: higher is better (accuracy, pass rate). Seed 003 calls these `lower` / `higher`.
 */
export type Direction = 'minimize' | 'maximize';

/** A source of the current time, injected so tests run on a manual clock. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  readonly now: () => number;
}

/** A source of uniform random numbers in [0, 1), injected so tests and proposers are reproducible. */
export interface RandomSource {
  /** The next number in [0, 1). */
  readonly next: () => number;
}

/** The real clock: `Date.now()`. */
export const systemClock: Clock = { now: () => Date.now() };
