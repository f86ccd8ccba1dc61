import type { EditPlan } from './proposer.js';
import type { MaybePromise } from './types.js';

/** The kept state an iteration started from. */
export interface Checkpoint {
  /** The iteration this checkpoint was taken for. */
  readonly iteration: number;
  /** The id of the last kept state (a git commit hash, a snapshot name, a version number). */
  readonly id: string;
}

/** What the engine tells the strategy about a candidate. */
export interface CandidateInfo {
  /** The iteration. */
  readonly iteration: number;
  /** 0 for the proposal, 1.. for a repair attempt. */
  readonly attempt: number;
  /** The one-line description (a git adapter uses it in the commit message). */
  readonly description: string;
  /** Paths the engine saw change, when it knows. */
  readonly changedFiles?: readonly string[];
}

/** What the engine tells the strategy when it rolls back. */
export interface RevertInfo {
  /** The iteration. */
  readonly iteration: number;
  /** The candidate's id from `commit`, if there was one. */
  readonly candidateId?: string;
}

/**
 * How a change is undone. The engine calls `checkpoint()` before the proposer edits, `commit()`
 * (if present) after the edit and before the evaluation, then exactly one of `keep()` or
 * `revert()`. `restoreBest()` runs once on stop.
 *
 * Invariants: `revert` must leave the artifact exactly at the checkpoint and verify it, throwing
 * `LoopError` `RESTORE_FAILED` when it cannot (the loop halts; no half-restored tree is left
 * unreported). Every member must be safe to call again after a crash (idempotent).
 */
export interface RollbackStrategy {
  /** Used in errors and logs. */
  readonly name: string;
  /**
   * Records the current kept state before the proposer edits it. `plan` is the proposer's
   * {@link EditPlan} when it has one: a strategy may save only `plan.files` (snapshot rollback).
   */
  readonly checkpoint: (iteration: number, plan?: EditPlan) => MaybePromise<Checkpoint>;
  /**
   * Optional: records the candidate before it is evaluated (the git adapter commits it) and
   * returns its id for the results row. Called again for a repair attempt of the same iteration.
   */
  readonly commit?: (checkpoint: Checkpoint, info: CandidateInfo) => MaybePromise<string>;
  /** Accepts the candidate as the new kept state and returns its id. */
  readonly keep: (checkpoint: Checkpoint, candidateId: string | undefined) => MaybePromise<string>;
  /** Rolls the artifact back to the checkpoint, verified. */
  readonly revert: (checkpoint: Checkpoint, info: RevertInfo) => MaybePromise<void>;
  /** Optional: on stop, leaves the artifact at the best kept state `bestId` (verified). */
  readonly restoreBest?: (bestId: string) => MaybePromise<void>;
  /**
   * Optional: on resume, makes the artifact equal the kept state `keptId` recorded in the results
   * log, discarding whatever an interrupted iteration left behind.
   */
  readonly recover?: (keptId: string) => MaybePromise<void>;
  /** Optional: the id of the current state (recorded in the baseline row). */
  readonly currentId?: () => MaybePromise<string>;
}
