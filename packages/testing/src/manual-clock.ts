import type { Clock } from '@loop/core';

/** A clock that only moves when told: for deterministic wall-clock policy tests. */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms`. */
  readonly advance: (ms: number) => void;
  /** Sets the time (ms since the epoch). */
  readonly set: (ms: number) => void;
}

/** Creates a {@link ManualClock} starting at `startMs` (default 0). */
export function createManualClock(startMs = 0): ManualClock {
  let now = startMs;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    set: (ms) => {
      now = ms;
    },
  };
}
