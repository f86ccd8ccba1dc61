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
 */
export type IterationStatus = 'baseline' | 'kept' | 'reverted' | 'rejected' | 'crash';

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
}

/** Counts of iterations per status (the baseline is not counted). */
export interface StatusCounts {
  kept: number;
  reverted: number;
  rejected: number;
  crash: number;
}
