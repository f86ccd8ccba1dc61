import type { Artifact, ArtifactSnapshot } from '../contracts/artifact.js';
import type { LoopError } from '../contracts/errors.js';
import type { GuardVerdict } from '../contracts/guard.js';
import type { Harness } from '../contracts/harness.js';
import type { CandidateData, IterationStatus } from '../contracts/iteration-record.js';
import type { KeepDecision } from '../contracts/keep-policy.js';
import type { EditPlan, ProposalContext } from '../contracts/proposer.js';
import type { CandidateInfo } from '../contracts/rollback-strategy.js';
import type { WorkingCopy } from '../contracts/working-copy.js';
import type { HaltInfo, PerSample } from './session-memory.js';

/** Where one candidate is edited and evaluated: the main workspace (in place) or a working copy. */
export interface Slot {
  readonly artifact: Artifact | undefined;
  readonly harness: Harness;
  /** The harness fingerprint taken at the start (main) or when the copy was made. */
  readonly fingerprint: string | undefined;
  readonly workingCopy?: WorkingCopy;
  /**
   * The candidate's own signal when it may be abandoned without stopping the loop (an async
   * pool's candidates at the stop): aborted with the loop's, and when the pool is closed. @default the loop's
   */
  readonly signal?: AbortSignal;
  /** In place: records the candidate before its evaluation (`rollback.commit`); returns its id. */
  readonly commit?: (info: CandidateInfo) => Promise<string>;
}

/** Fresh incumbent samples for one batch (`parallel.remeasureIncumbent`). */
export interface IncumbentRemeasure {
  samples: number[];
  dimensions: PerSample<Record<string, number>>;
  crashed: number;
  error?: unknown;
}

/** What one candidate came to, before its batch's winner is chosen and its row is written. */
export interface Outcome {
  readonly iteration: number;
  readonly k: number;
  readonly started: number;
  /** When it was decided (the clock's ms); the async schedule's rows wait longer. @default the row's time */
  ended?: number;
  slot?: Slot;
  plan?: EditPlan;
  status: IterationStatus;
  label?: string;
  note?: string;
  score: number | null;
  description: string;
  error?: string;
  changedFiles?: readonly string[];
  candidateId: string;
  decision?: KeepDecision;
  samples: number[];
  dimensions: PerSample<Record<string, number>>;
  gates: PerSample<Record<string, boolean>>;
  logTail: string;
  proposerFailed: boolean;
  aborted: boolean;
  seedOnly: boolean;
  /** Set when this candidate halts the loop. */
  halt?: HaltInfo;
  /** The error the run throws after its stop sequence (HARNESS_TAMPERED). */
  fatal?: LoopError;
  /** The candidate's record so far (see {@link CandidateData}): each stage merges its keys in. */
  data: CandidateData;
}

/** A candidate whose slot is open and whose edit is awaited (from the proposer or a host's tell). */
export interface PendingCandidate {
  readonly o: Outcome;
  readonly slot: Slot;
  readonly plan: EditPlan | undefined;
  readonly snapshotBefore: ArtifactSnapshot | undefined;
  /** The seed-only detector's capture before the edit. */
  readonly captured: unknown;
  /** What the proposer's context carries besides the engine's (the plan, the slot's artifact and copy). */
  readonly extra: Partial<ProposalContext>;
}

/** How {@link finishCandidate} treats the edit. */
export interface FinishOptions {
  /** Crash repairs with the configured proposer's `repair` (false for a host's edit). */
  readonly repair: boolean;
  /**
   * A host's edit (`tell`): a change outside the artifact throws `EDIT_OUTSIDE_ARTIFACT` before
   * anything is recorded, instead of becoming a `rejected` row.
   */
  readonly strict?: boolean;
  /** Fresh incumbent samples of a parallel batch. */
  readonly incumbent?: Promise<IncumbentRemeasure>;
}

/** Merges `more` into the candidate's record (a stage's keys override earlier ones). */
export function addData(o: Outcome, more: CandidateData | undefined): void {
  if (more) o.data = { ...o.data, ...more };
}

/** Applies a guard's verdict to `o`: the row's class, label and note. */
export function applyVerdict(
  o: Outcome,
  guard: string,
  verdict: GuardVerdict,
  rejectedClass: IterationStatus,
): Outcome {
  const status: IterationStatus =
    verdict.action === 'halt' ? 'halted' : verdict.action === 'skip' ? 'reverted' : rejectedClass;
  o.status = status;
  o.note = `${guard}: ${verdict.note}`;
  o.description = `${o.description} (${o.note})`;
  if (verdict.status) o.label = verdict.status;
  if (verdict.action === 'halt') o.halt = { status: verdict.status ?? 'halted', note: o.note };
  return o;
}
