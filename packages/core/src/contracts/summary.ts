import type { StatusCounts } from './iteration-record.js';
import type { StopDecision } from './stop-policy.js';
import type { Direction } from './types.js';

/** One kept change in the summary. */
export interface KeptChange {
  /** The iteration that was kept. */
  readonly iteration: number;
  /** Its candidate id (commit hash for git). */
  readonly candidateId: string;
  /** What it changed. */
  readonly description: string;
  /** Its score. */
  readonly score: number;
  /** Its improvement over the best before it (positive, in score units). */
  readonly improvement: number;
}

/** What `run()` returns when the loop stops. */
export interface LoopSummary {
  /** Which way scores improve. */
  readonly direction: Direction;
  /** The baseline score. */
  readonly baseline: number;
  /** The best kept score (equals the baseline when nothing was kept). */
  readonly best: number;
  /** The id of the best kept state. */
  readonly bestId: string;
  /** Iterations completed in total (baseline excluded), including rows from before a resume. */
  readonly iterations: number;
  /** Counts per status, baseline excluded. */
  readonly counts: Readonly<StatusCounts>;
  /** Every kept change, largest improvement first. */
  readonly kept: readonly KeptChange[];
  /** Why it stopped. */
  readonly stop: StopDecision;
  /** Wall time of this run in ms (injected clock): after a resume, this session's time only. */
  readonly durationMs: number;
  /**
   * Iterations run by this `run()` call (baseline excluded): equals `iterations` for a run that
   * did not resume, fewer after a resume (0 when it added none).
   */
  readonly iterationsThisRun: number;
  /**
   * Set when the loop halted (a guard's `halt`, a failed restore, a tampered harness): the row's
   * label (or the error's label), the note, and the error code when the halt was an error.
   */
  readonly halted?: { readonly status: string; readonly note: string; readonly code?: string };
}
