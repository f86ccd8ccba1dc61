/**
 * What the engine decided for one iteration. Files use the seeds' own words; each results log maps
 * these engine statuses onto its format (auto-iterate: baseline and kept are `keep`, reverted and
 * rejected are `discard`, crash is `crash`).
 *
 * - `baseline`: the unmodified artifact's evaluation (iteration 0).
 * - `kept`: strictly better under the keep policy; the change stays.
 * - `reverted`: evaluated and not better (equal scores revert); the change was rolled back.
 * - `rejected`: the proposal changed a file it may not change (a read-only file); rolled back unevaluated.
 * - `crash`: the run timed out, exited non-zero, or printed no finite metric; rolled back.
 * - `halted`: the loop halted at this iteration (a guard said `halt`, a restore failed, the harness
 *   was tampered with); the change was rolled back (or could not be) and the stop sequence ran.
 *
 * These are the engine's *classes*. A preset that writes its seed's own status names (seed 002's
 * `reverted-redtest`, `restore-failed`, `rubric-tampered`) puts them in {@link IterationRecord.label}.
 */
export type IterationStatus = 'baseline' | 'kept' | 'reverted' | 'rejected' | 'crash' | 'halted';

/** Every {@link IterationStatus}, in the order the summary lists them. */
export const ITERATION_STATUSES: readonly IterationStatus[] = ['baseline', 'kept', 'reverted', 'rejected', 'crash', 'halted'];

/** One row of the loop's history, as the engine sees it. */
export interface IterationRecord {
  /** 0 for the baseline, then 1, 2, ... */
  readonly iteration: number;
  /** The candidate's id from the rollback strategy (a git commit hash for git), or `''` if none. */
  readonly candidateId: string;
  /** The score, or `null` for a crash or a rejected proposal. */
  readonly score: number | null;
  /** The decision. */
  readonly status: IterationStatus;
  /** One line saying what was tried (and for a crash, why it crashed). */
  readonly description: string;
  /**
   * The preset's own status name for this row, written to its files instead of the class when set
   * (seed 002: `reverted-redtest`, `restore-failed`, `rubric-tampered`; a guard's `status`). @default none
   */
  readonly label?: string;
  /** A guard's or keep policy's note (why a keep was blocked, why the loop halted). @default none */
  readonly note?: string;
  /** A crash's one-line message, without the description (for `repeatedError`). @default none */
  readonly error?: string;
  /** The mutable paths the candidate changed, sorted, when the engine knows them (an artifact or the proposer said). @default unknown */
  readonly changedFiles?: readonly string[];
  /** Named sub-scores of the scored run (a preset's per-dimension columns). @default none */
  readonly dimensions?: Readonly<Record<string, number>>;
  /** Tier-1 gates of the scored run, true = green. @default none */
  readonly gates?: Readonly<Record<string, boolean>>;
}

/** Counts of iterations per status (the baseline is not counted). */
export interface StatusCounts {
  kept: number;
  reverted: number;
  rejected: number;
  crash: number;
  /** Rows that halted the loop (at most one per run). */
  halted: number;
}
