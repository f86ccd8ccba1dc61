import type { CandidateData } from './iteration-record.js';
import type { RunRecord } from './harness.js';
import type { Direction, MaybePromise } from './types.js';

/** Why a run produced no usable score; each is a `crash` row. */
export type CrashReason =
  'timeout' | 'exit-code' | 'killed' | 'metric-not-found' | 'metric-not-finite' | 'harness-error' | 'aborted';

/** A usable score. */
export interface ScoreOk {
  readonly ok: true;
  /** A finite number; better is decided by the scorer's `direction`. */
  readonly value: number;
  /** Named sub-scores, when the scorer has them. */
  readonly dimensions?: Readonly<Record<string, number>>;
  /**
   * Tier-1 gates (seed 002: tests green, coverage met), `true` = green. A red gate makes
   * {@link tier1Gates} refuse the keep whatever the value. @default none
   */
  readonly gates?: Readonly<Record<string, boolean>>;
  /** Facts for the candidate's record (named metrics besides `value`). @default none */
  readonly data?: CandidateData;
}

/** A run without a usable score: a crash. */
export interface ScoreCrash {
  readonly ok: false;
  /** The kind of failure. */
  readonly reason: CrashReason;
  /** One line for the results row and the proposer. */
  readonly message: string;
  /** The log's last lines (50 by default, seed 003 `tail -50 run.log`) for diagnosis and repair. */
  readonly logTail?: string;
  /** Facts for the candidate's record (what was measured before the crash). @default none */
  readonly data?: CandidateData;
}

/** What a scorer returns. */
export type ScoreResult = ScoreOk | ScoreCrash;

/** Turns a {@link RunRecord} into a {@link ScoreResult}. */
export interface Scorer {
  /** Used in errors and logs. */
  readonly name: string;
  /** Which way the score improves. */
  readonly direction: Direction;
  /** Reads the run (its log, its value) and returns a score or a crash. Must not throw for a bad run. */
  readonly score: (run: RunRecord) => MaybePromise<ScoreResult>;
}

/** True when `a` is strictly better than `b` in `direction`. Equal is not better. */
export function isBetter(a: number, b: number, direction: Direction): boolean {
  return direction === 'minimize' ? a < b : a > b;
}

/** How much better `candidate` is than `incumbent` (positive = better) in `direction`. */
export function improvement(candidate: number, incumbent: number, direction: Direction): number {
  return direction === 'minimize' ? incumbent - candidate : candidate - incumbent;
}
