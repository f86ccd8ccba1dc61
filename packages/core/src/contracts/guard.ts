import type { ArtifactChanges } from './artifact.js';
import type { IterationRecord } from './iteration-record.js';
import type { KeepDecision } from './keep-policy.js';
import type { EditPlan } from './proposer.js';
import type { ScoreOk } from './scorer.js';
import type { Direction, MaybePromise } from './types.js';
import type { WorkingCopy } from './working-copy.js';

/**
 * What a guard says. `undefined` passes; a verdict acts:
 *
 * - `skip` (from `beforeEdit` only): the edit is not made; the row is class `reverted`.
 * - `reject`: from `beforeEdit` or `beforeRun`, the change is rolled back unevaluated (class
 *   `rejected`); from `afterScore`, the keep is blocked and the change rolled back (class
 *   `reverted`): pi-autoresearch's `checks.sh`, auto-iterate's Guard.
 * - `halt`: the change is rolled back, the row is class `halted`, and the loop runs its stop
 *   sequence (restore best, summary, state written last); `run()` returns with `stop.reason`
 *   `halted` (seed 002: `rubric-tampered`, needs-human).
 *
 * The row's label is `status` when given, and `note` is appended to its description.
 */
export interface GuardVerdict {
  /** What to do. */
  readonly action: 'skip' | 'reject' | 'halt';
  /** The row's label: the preset's own status name (e.g. `checks_failed`, `rubric-tampered`). @default none */
  readonly status?: string;
  /** One line: why. Appended to the row's description as ` (<guard>: <note>)`. */
  readonly note: string;
}

/** What every guard hook sees. */
export interface GuardInput {
  /** The iteration being decided. */
  readonly iteration: number;
  /** Every row so far, baseline first. */
  readonly history: readonly IterationRecord[];
  /** The best kept score. */
  readonly best: number;
  /** Which way scores improve. */
  readonly direction: Direction;
  /** The proposer's plan, when it has one. */
  readonly plan?: EditPlan;
  /** The loop's abort signal. */
  readonly signal: AbortSignal;
  /** In a parallel batch (after the edit): the candidate's working copy; a command guard runs in its `dir`. */
  readonly workingCopy?: WorkingCopy;
}

/**
 * A check the engine runs around each candidate; a preset's seed rules (rubric fingerprint,
 * harness files, safety ASK, a correctness command) become guards instead of a loop of their own.
 * Hooks are optional; a hook that throws fails the run like any unexpected error (the workspace is
 * left at the last kept state first).
 *
 * Order per candidate: `beforeEdit` (after `Proposer.plan`, before the checkpoint) → edit →
 * read-only check → `beforeRun` (after the change is known, before the harness) → harness →
 * scorer → keep policy → `afterScore` (only when the keep policy would keep).
 */
export interface Guard {
  /** Used in row descriptions and logs. */
  readonly name: string;
  /** Before anything is touched: may `skip`, `reject` or `halt`. */
  readonly beforeEdit?: (input: GuardInput) => MaybePromise<GuardVerdict | undefined>;
  /** After the edit, before the run: `changes` are the paths the candidate changed. */
  readonly beforeRun?: (
    input: GuardInput & { readonly changes: ArtifactChanges | undefined; readonly description: string },
  ) => MaybePromise<GuardVerdict | undefined>;
  /** After a score the keep policy would keep: may block the keep (`reject`) or `halt`. */
  readonly afterScore?: (
    input: GuardInput & { readonly score: ScoreOk; readonly decision: KeepDecision; readonly description: string },
  ) => MaybePromise<GuardVerdict | undefined>;
}

/**
 * The first verdict of `guards`' `hook`, in order, with the guard that gave it: the engine's order,
 * exported so a preset that runs its own stages (collie's Stages 5.1-6) consults guards exactly as
 * the engine does. Guards without the hook are passed over; `undefined` when none gives a verdict.
 * Errors a guard throws propagate unchanged.
 */
export async function firstVerdict<K extends 'beforeEdit' | 'beforeRun' | 'afterScore'>(
  guards: readonly Guard[],
  hook: K,
  input: Parameters<NonNullable<Guard[K]>>[0],
): Promise<{ guard: Guard; verdict: GuardVerdict } | undefined> {
  for (const guard of guards) {
    const fn = guard[hook] as ((i: typeof input) => MaybePromise<GuardVerdict | undefined>) | undefined;
    const verdict = fn ? await fn(input) : undefined;
    if (verdict) return { guard, verdict };
  }
  return undefined;
}
