import type { Artifact } from './artifact.js';
import type { Harness } from './harness.js';
import type { MaybePromise } from './types.js';

/**
 * One isolated working copy of the workspace, made for one candidate of a parallel batch: the
 * proposer edits `artifact` (and works in `dir`), the engine evaluates it with `harness`, and
 * nothing reaches the main workspace unless the engine adopts the copy.
 */
export interface WorkingCopy {
  /** Used in errors and logs, for example `copy(3.1)`. */
  readonly name: string;
  /** The iteration (results row) this copy's candidate is. */
  readonly iteration: number;
  /** The candidate's slot in its batch: 0 .. K − 1. */
  readonly k: number;
  /**
   * The copy's mutable surface, with the same relative paths as the main artifact so the two
   * snapshots compare. The proposer gets it as `ProposalContext.artifact`; the engine inspects it
   * before and after the proposal (read-only violations make the candidate `rejected`).
   */
  readonly artifact: Artifact;
  /** The directory the proposer should work in (a file copy's root); absent for an in-memory copy. */
  readonly dir?: string;
  /** Runs the fixed evaluation on this copy (never on the main workspace). */
  readonly harness: Harness;
  /** Optional: frees the copy (removes its directory). Called once per copy, adopted or not. Must be idempotent. */
  readonly dispose?: () => MaybePromise<void>;
}

/**
 * Makes isolated working copies for parallel candidates and brings the winner's change back.
 *
 * The engine calls `create(iteration, k)` for each candidate of a batch (concurrently), while the
 * main workspace holds the incumbent and is not touched; then, for the one candidate it keeps,
 * takes `rollback.checkpoint()`, calls `adopt(copy)`, verifies that the main artifact now equals
 * the copy, and records the change through `rollback.commit()` and `rollback.keep()`. Every copy
 * is disposed after the batch.
 *
 * Invariants: `create` copies the main workspace as it is now (the incumbent) and must not change
 * it; copies must not share mutable state with each other or with the main workspace; `adopt`
 * must leave the main artifact's mutable paths byte-equal to the copy's and change nothing else.
 */
export interface WorkingCopyProvider {
  /** Used in errors and logs. */
  readonly name: string;
  /** Makes a fresh copy of the main workspace for candidate `k` of the batch, recorded as `iteration`. */
  readonly create: (iteration: number, k: number) => MaybePromise<WorkingCopy>;
  /**
   * Applies the copy's changes to the main workspace (files written or deleted) and returns the
   * relative paths it changed, sorted. Called at most once per batch, for the kept candidate.
   */
  readonly adopt: (copy: WorkingCopy) => MaybePromise<readonly string[]>;
}
