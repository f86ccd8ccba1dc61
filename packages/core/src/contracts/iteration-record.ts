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
export const ITERATION_STATUSES: readonly IterationStatus[] = [
  'baseline',
  'kept',
  'reverted',
  'rejected',
  'crash',
  'halted',
];

/** One intermediate value a run reported while it ran (a training curve's point). */
export interface IntermediateReport {
  /** The run's own progress unit (a training step, an epoch, seconds): increasing within a run. */
  readonly step: number;
  /** The value at `step`, in the objective's units. */
  readonly value: number;
}

/**
 * The facts about ONE candidate that travel with it from its proposal through its run, its score
 * and the decision into its row ({@link IterationRecord.data}, `ResultsLog.append`) and every event
 * about it. Each stage adds its keys (the proposal's `data`, the run record's, the score's, the
 * keep decision's, a host's `tell`), later stages overriding earlier ones key by key. The named
 * keys are the ones the engine and the built-ins share; a preset keeps its own per-candidate facts
 * under a key of its own (seed 002's pass facts under `autoresearch`), never in a map beside the
 * engine keyed by iteration number. Values must be JSON-serialisable (sidecar files carry them).
 */
export interface CandidateData {
  /** Named metrics of the scored run besides the objective (latency_ms, memory_mb, ...). @default none */
  readonly metrics?: Readonly<Record<string, number>>;
  /** The run's intermediate reports, in the order they arrived. @default none */
  readonly reports?: readonly IntermediateReport[];
  /** The proposer's parameters for this candidate (a hyperparameter proposer's point). @default none */
  readonly params?: Readonly<Record<string, unknown>>;
  /** Set when a pruner stopped the run early (issue 27): the step, the value and why. @default none */
  readonly pruned?: {
    readonly step: number;
    readonly value: number | null;
    readonly reason: string;
    readonly pruner: string;
    /** The iteration whose curve it was compared against (absent when that row had none). */
    readonly incumbent?: number;
  };
  /** What producing this candidate cost (an agent proposer's spend). @default none */
  readonly cost?: { readonly usd?: number; readonly tokens?: number };
  /**
   * The digest (SHA-1, hex) of the artifact content the candidate was evaluated with, set when
   * `keep.skipDuplicates` is on: a resumed session reads it back, so a tree evaluated before the
   * resume is still never evaluated again (seed 001). @default none
   */
  readonly tree?: string;
  /** A preset's or host's own facts, each under a key of its own. */
  readonly [key: string]: unknown;
}

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
  /**
   * The mutable paths the candidate changed, sorted, when the engine knows them (an artifact or the proposer said).
   * @default unknown
   */
  readonly changedFiles?: readonly string[];
  /** Named sub-scores of the scored run (a preset's per-dimension columns). @default none */
  readonly dimensions?: Readonly<Record<string, number>>;
  /** Tier-1 gates of the scored run, true = green. @default none */
  readonly gates?: Readonly<Record<string, boolean>>;
  /**
   * The candidate's record: what its proposal, run, score and decision added (see {@link CandidateData}). @default none
   */
  readonly data?: CandidateData;
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
