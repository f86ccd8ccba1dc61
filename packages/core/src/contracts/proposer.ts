import type { Artifact } from './artifact.js';
import type { CandidateData, IterationRecord } from './iteration-record.js';
import type { Direction, MaybePromise } from './types.js';
import type { WorkingCopy } from './working-copy.js';

/** The crash a repair attempt is asked to fix. */
export interface CrashInfo {
  /** One line: why the run crashed. */
  readonly message: string;
  /** The log's last lines. */
  readonly logTail: string;
}

/**
 * Everything the proposer may use to choose its ONE focused edit. Per seed 001's isolation rule an
 * agent proposer gets only this (target, results so far, iteration number), never a long-lived
 * conversation.
 */
export interface ProposalContext {
  /** The iteration being proposed (1, 2, ...). */
  readonly iteration: number;
  /** 0 for the proposal, 1.. for repair attempts of a crash within the same iteration. */
  readonly attempt: number;
  /** Every row so far, baseline first. */
  readonly history: readonly IterationRecord[];
  /**
   * The async schedule's candidates (`parallel.schedule: 'async'`, issue 27) whose run has ended but
   * whose row waits for an earlier iteration's (rows are written in iteration order), in iteration
   * order: their score, description and record as evaluated. Their `status` is not final (`kept`
   * means it passed the keep policy when it ended; its row may still say `reverted`). The others
   * between the last row and `iteration` are still running. @default none (every other schedule)
   */
  readonly finished?: readonly IterationRecord[];
  /** The baseline score. */
  readonly baseline: number;
  /** The best (kept) score so far. */
  readonly best: number;
  /** Which way scores improve. */
  readonly direction: Direction;
  /** Advice from the loop, for example "3 crashes in a row: review the strategy". */
  readonly hints: readonly string[];
  /** The mutable surface: in a parallel batch, the candidate's working copy's artifact (edit this one). */
  readonly artifact?: Artifact;
  /**
   * Set in a parallel batch (`LoopOptions.parallel`): the candidate's isolated working copy. A
   * proposer edits `artifact` (the copy's) and works in `workingCopy.dir` when it has one.
   */
  readonly workingCopy?: WorkingCopy;
  /** The iteration's plan from `Proposer.plan`, when the proposer has one (seed 002 loop steps 1-2). */
  readonly plan?: EditPlan;
  /** Present on repair attempts: the crash to fix. */
  readonly crash?: CrashInfo;
  /** Aborted when the loop stops; a long-running proposer must return promptly. */
  readonly signal: AbortSignal;
}

/**
 * What a proposer intends to do, said before anything is touched: the engine hands it to the guards'
 * `beforeEdit` (a safety ASK, a needs-human stop) and to `RollbackStrategy.checkpoint`, so a snapshot
 * rollback copies only `files` (seed 002 step 3: "copy every mutable file you are about to change").
 */
export interface EditPlan {
  /** One line: the idea. @default the proposal's description */
  readonly description?: string;
  /** Relative paths the edit will touch; the rollback snapshots only these. @default every mutable path */
  readonly files?: readonly string[];
  /** A short kebab-case name for snapshot and branch names. @default derived from the description */
  readonly slug?: string;
  /** Anything the preset's guards and proposer pass along (seed 002: declared flows, a needs-human request). */
  readonly data?: unknown;
}

/** What a proposer did. */
export interface Proposal {
  /** One line describing the change (sanitised before it reaches results.tsv). */
  readonly description: string;
  /** The files it changed, when it knows; the engine also detects changes via the artifact. */
  readonly changedFiles?: readonly string[];
  /** Facts for the candidate's record (its parameters, its cost): see {@link CandidateData}. @default none */
  readonly data?: CandidateData;
}

/**
 * Produces ONE focused edit per iteration and applies it to the artifact.
 */
export interface Proposer {
  /** Used in errors and logs. */
  readonly name: string;
  /**
   * Optional: picks the iteration's ONE edit without touching anything (seed 002 loop steps 1-2).
   * Runs before `RollbackStrategy.checkpoint`, which receives the plan. Throwing is a `crash` row
   * (`proposer failed: ...`), as for `propose`.
   */
  readonly plan?: (context: ProposalContext) => MaybePromise<EditPlan>;
  /**
   * Applies one edit and describes it; `context.plan` holds the plan when `plan` ran. Throwing is a
   * `crash` row; `maxProposerFailures` in a row stop the loop with `proposer-failing`.
   */
  readonly propose: (context: ProposalContext) => MaybePromise<Proposal>;
  /**
   * Optional: tries to fix a crash of the current candidate in place (seed 003: a simple bug such
   * as a typo is fixed and retried, at most 2 times, counted as the same iteration). Returns
   * `undefined` when the crash is not a simple one (then the candidate is rolled back as a crash).
   */
  readonly repair?: (context: ProposalContext) => MaybePromise<Proposal | undefined>;
}

/**
 * A proposer from a function: the simplest way to write code-defined edits.
 *
 * @example
 * const proposer = createFunctionProposer('double-lr', async ({ iteration }) => {
 *   await editConfig((c) => ({ ...c, lr: c.lr * 2 }));
 *   return { description: `double lr (iteration ${iteration})` };
 * });
 */
export function createFunctionProposer(
  name: string,
  propose: Proposer['propose'],
  repair?: Proposer['repair'],
): Proposer {
  return repair === undefined ? { name, propose } : { name, propose, repair };
}
