import type { IterationRecord, LoopError } from '@loop/core';
import type { SnapshotCheckpoint } from '@loop/rollback-snapshot';
import type { GuardReport } from './pass-guards.js';
import type { EditIdea, RefusedEdit, ResumeCheck } from './pass-options.js';
import type { PassScore } from './pass-harness.js';

/**
 * What one `runPass` call knows beyond the engine's rows: the idea and full score of each
 * iteration, the chat-line wording of rows a guard stopped, the refused edits, the halt, and the
 * pre-edit checkpoints (for results.tsv's snapshot column). Shared by the pass's proposer, harness,
 * guards, stop policy, results log and state store; lives for one call.
 */
export interface PassRun extends GuardReport {
  /** Ideas by iteration (from `plan`). */
  readonly ideas: Map<number, EditIdea>;
  /** Full scores by iteration (0 = the baseline); the engine's rows carry the composite and dimensions. */
  readonly scores: Map<number, PassScore>;
  /** Chat-line descriptions a guard or the proposer set, by iteration. */
  readonly descriptions: Map<number, string>;
  /** Pre-edit checkpoints by iteration. */
  readonly checkpoints: Map<number, SnapshotCheckpoint>;
  /** Edits refused at the ASK-before-edit question in this call. */
  readonly refusedEdits: RefusedEdit[];
  /** Function mode on resume: the Tier-1 gates re-measured on the restored best (by its iteration). */
  resumeCheck?: ResumeCheck & { readonly iteration: number };
  /** True when the baseline's tests were green (a red test is then a green-to-red `reverted-redtest`). @default true */
  baselineGreen: boolean;
  /** The halt a guard reported: the stop reason and message, and the error of a loud halt. */
  halted?: { readonly status: string; readonly message: string; readonly error?: LoopError };
  /** The chat line description of `record`: a guard's or the proposer's wording, else the engine's. */
  describeRow(record: IterationRecord): string;
}

/** A fresh {@link PassRun}. */
export function createPassRun(): PassRun {
  const run: PassRun = {
    ideas: new Map(),
    scores: new Map(),
    descriptions: new Map(),
    checkpoints: new Map(),
    refusedEdits: [],
    baselineGreen: true,
    describe: (iteration, text) => void run.descriptions.set(iteration, text),
    halt: (status, message, error) => {
      run.halted = { status, message, ...(error ? { error } : {}) };
    },
    describeRow: (record) => {
      const own = run.descriptions.get(record.iteration);
      if (record.label === 'restore-failed') return record.description;
      return own ?? record.description;
    },
  };
  return run;
}
