import type { CandidateData, IterationRecord } from '../contracts/iteration-record.js';
import type { EditPlan, Proposal, ProposalContext } from '../contracts/proposer.js';
import type { LoopSummary } from '../contracts/summary.js';

/**
 * One candidate a host opened with `Loop.ask` (Optuna's trial): the checkpoint is taken, and the
 * host (its own agent, a person, a notebook) now edits `context.artifact` / the workspace, then
 * calls `Loop.tell` with what it did.
 */
export interface Trial {
  /** The iteration this candidate's row will have (1, 2, ...). */
  readonly iteration: number;
  /** The plan given to `ask`, when one was. */
  readonly plan?: EditPlan;
  /** What a proposer would see: the rows so far, the baseline and best, hints, the artifact, the signal. */
  readonly context: ProposalContext;
}

/**
 * What a host tells about its edit: the proposal (a one-line description, optionally the files it
 * changed and facts for the candidate's record), or `error` when its agent failed to produce one
 * (a `crash` row, `proposer failed: <error>`, counted towards `maxProposerFailures`).
 */
export type TrialEdit = Proposal | { readonly error: string; readonly data?: CandidateData };

/** What `Loop.step` and `Loop.tell` did. */
export interface StepOutcome {
  /**
   * The rows this call appended, in order: one in place, K for a parallel batch, none when the
   * signal aborted the candidate (it was rolled back and left no row).
   */
  readonly records: readonly IterationRecord[];
  /**
   * Set when the loop stopped after this call (a stop policy, a halt, the abort signal): its
   * summary. The stop sequence ran and the lock is released; later calls throw `LOOP_STOPPED`.
   */
  readonly stopped?: LoopSummary;
}
