import type { IterationRecord, StatusCounts } from './iteration-record.js';
import type { SampleSummary } from '../stats/statistics.js';
import type { Direction } from './types.js';

/** What a cost meter reports: spend so far in this run. */
export interface CostReading {
  /** US dollars spent so far. @default unknown */
  readonly usd?: number;
  /** Tokens used so far. @default unknown */
  readonly tokens?: number;
}

/**
 * The loop's state after an iteration, as stop policies and advisors see it. Read-only.
 */
export interface LoopState {
  /** The last completed iteration (0 after the baseline). */
  readonly iteration: number;
  /** When this run started, ms since the epoch (from the injected clock). */
  readonly startedAt: number;
  /** Now, ms since the epoch (from the injected clock). */
  readonly now: number;
  /** Which way scores improve. */
  readonly direction: Direction;
  /** The baseline score. */
  readonly baseline: number;
  /** The best kept score. */
  readonly best: number;
  /** The id of the best kept state. */
  readonly bestId: string;
  /** Every row so far, baseline first (including rows from before a resume). */
  readonly history: readonly IterationRecord[];
  /** Counts per status, baseline excluded. */
  readonly counts: Readonly<StatusCounts>;
  /** Iterations since the last kept one (reverted, rejected and crash all count). */
  readonly consecutiveNonImprovements: number;
  /** Crashes in a row (reset by any non-crash row). */
  readonly consecutiveCrashes: number;
  /**
   * Crashes in a row with the same `error` message as the last one (0 when the last row is not a crash). Set by the
   * engine; optional so tests can build states by hand.
   */
  readonly consecutiveSameError?: number;
  /** Rows in a row whose `changedFiles` is known and empty (a proposal that changed nothing). Set by the engine. */
  readonly consecutiveNoChange?: number;
  /**
   * The best kept score after each iteration, index = iteration (`bestTrail[0]` is the baseline).
   * Kept incrementally; `convergence` reads two entries of it. Optional so tests can build states by hand.
   */
  readonly bestTrail?: readonly number[];
  /**
   * Candidates started and not yet recorded (an async pool's, asking whether to start one more):
   * a predictive `costBudget` counts their expected cost too. @default 0
   */
  readonly pending?: number;
  /** Money and tokens spent so far, from `LoopOptions.cost` (USD, tokens). @default none */
  readonly cost?: CostReading;
  /** Iterations run in this process (excludes rows from before a resume). */
  readonly iterationsThisRun: number;
  /**
   * The spread of the baseline's repeats (the noise floor: n, mean, sd, MAD). Set by the engine
   * (absent after a resume without state.json); optional so tests can build states by hand.
   */
  readonly baselineSpread?: SampleSummary;
  /** The incumbent's samples (the baseline's repeats, then the last kept candidate's samples). Set by the engine. */
  readonly incumbentSamples?: readonly number[];
  /** The loop's abort signal. */
  readonly signal: AbortSignal;
}
