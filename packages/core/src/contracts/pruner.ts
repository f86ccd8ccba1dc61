import type { IntermediateReport, IterationRecord } from './iteration-record.js';
import type { Direction } from './types.js';

/**
 * What a {@link Pruner} looks at, each time the running candidate reports an intermediate value
 * (`RunContext.report(step, value)`).
 */
export interface PruneInput {
  /** The iteration whose first evaluation is running. */
  readonly iteration: number;
  /** The step of the report that just arrived (the run's own progress unit). */
  readonly step: number;
  /** Its value, in the objective's units (may be NaN or infinite: a diverged run). */
  readonly value: number;
  /** Every report of this run so far, the new one last. */
  readonly reports: readonly IntermediateReport[];
  /** Which way values improve. */
  readonly direction: Direction;
  /** The incumbent's curve: the reports of the last kept row (else the baseline's), when it has any. */
  readonly incumbent: readonly IntermediateReport[] | undefined;
  /** Every row so far, baseline first; a row's curve is `row.data.reports`. */
  readonly history: readonly IterationRecord[];
}

/** Why a run is stopped early: said in its row, e.g. `3.41 vs incumbent 3.05`. */
export interface PruneVerdict {
  /** One short clause, without the step (the engine writes `pruned at step <s>[ of <n>]: <reason>`). */
  readonly reason: string;
}

/**
 * Decides, from the reports a running candidate made so far and the history, whether to stop it
 * early (issue 27: stop doomed runs). Called synchronously on every report of a candidate's first
 * evaluation (never the baseline's, never a keep policy's re-samples). A pruned run's process tree
 * is killed like a timeout, the candidate is reverted as a discard (status `reverted`, its score
 * the last reported value, `data.pruned` set) and it never counts as a crash.
 */
export interface Pruner {
  /** Used in logs. */
  readonly name: string;
  /** Returns a verdict to prune, or `undefined` to keep the run going. Must not throw. */
  readonly check: (input: PruneInput) => PruneVerdict | undefined;
}

/** What the engine records about a pruned run, in its row's `data.pruned`. */
export interface PrunedFact {
  /** The step of the report that decided it. */
  readonly step: number;
  /** That report's value (`null` when it was not finite). */
  readonly value: number | null;
  /** The pruner's reason. */
  readonly reason: string;
  /** The pruner's name. */
  readonly pruner: string;
  /**
   * The iteration of the row whose curve the pruners compared against (`PruneInput.incumbent`:
   * the last keep when the run started, else the baseline); absent when that row had no curve.
   */
  readonly incumbent?: number;
}

/**
 * The value a curve had at `step`: its last report at or before `step`, or `undefined` when the
 * curve has none that early or ends before `step` (a curve is only compared where it reached).
 */
export function valueAtStep(curve: readonly IntermediateReport[] | undefined, step: number): number | undefined {
  if (!curve || curve.length === 0) return undefined;
  const last = curve[curve.length - 1] as IntermediateReport;
  if (last.step < step) return undefined;
  let found: number | undefined;
  for (const r of curve) {
    if (r.step > step) break;
    found = r.value;
  }
  return found;
}

/** True when `a` is worse than `b` in `direction` (`minimize`: larger). */
export function isWorse(a: number, b: number, direction: Direction): boolean {
  return direction === 'minimize' ? a > b : a < b;
}

/** Formats a number for a reason: at most 4 significant digits past the integer part. */
export function formatValue(v: number): string {
  return Number.isFinite(v)
    ? String(Number(v.toPrecision(Math.max(4, Math.ceil(Math.log10(Math.abs(v) + 1))))))
    : String(v);
}
