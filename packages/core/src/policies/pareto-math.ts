import type { IterationRecord } from '../contracts/iteration-record.js';
import type { Direction } from '../contracts/types.js';

/** One objective of a multi-objective run: a named metric of the candidate's record and its direction. */
export interface ObjectiveSpec {
  /** The metric's name in `IterationRecord.data.metrics` (`latency_ms`, `accuracy`). */
  readonly metric: string;
  /** Which way it improves. */
  readonly direction: Direction;
}

/**
 * An Optuna-style constraints function: one value per constraint, `<= 0` feasible, the amount above
 * 0 the violation (Optuna's `constraints_func`). `undefined` when the record carries no constraint
 * facts (a crash, a row of another run): the proposers then count it as feasible.
 */
export type ConstraintsFunction = (record: IterationRecord) => readonly number[] | undefined;

/** The total violation of constraint values (Optuna's infeasible score): the sum of the positive ones; 0 = feasible. */
export function totalViolation(values: readonly number[] | undefined): number {
  if (!values) return 0;
  return values.reduce((a, v) => a + (Number.isNaN(v) ? Infinity : Math.max(0, v)), 0);
}

/** True when `a` Pareto-dominates `b` (losses, lower is better): no worse everywhere, better somewhere. */
export function dominates(a: readonly number[], b: readonly number[]): boolean {
  let better = false;
  for (let i = 0; i < a.length; i++) {
    if (a[i]! > b[i]!) return false;
    if (a[i]! < b[i]!) better = true;
  }
  return better;
}

/**
 * Non-domination ranks (Deb et al. 2002, fast non-dominated sort) of loss vectors (lower is better):
 * 0 for the non-dominated ones, 1 for those dominated only by rank 0, and so on.
 */
export function nonDominationRanks(losses: readonly (readonly number[])[]): number[] {
  const n = losses.length;
  const rank = new Array<number>(n).fill(-1);
  const dominatedBy = new Array<number>(n).fill(0);
  const dominatesList: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (dominates(losses[i]!, losses[j]!)) {
        dominatesList[i]!.push(j);
        dominatedBy[j]!++;
      } else if (dominates(losses[j]!, losses[i]!)) {
        dominatesList[j]!.push(i);
        dominatedBy[i]!++;
      }
    }
  }
  let front = rank.map((_, i) => i).filter((i) => dominatedBy[i] === 0);
  for (let r = 0; front.length > 0; r++) {
    const next: number[] = [];
    for (const i of front) {
      rank[i] = r;
      for (const j of dominatesList[i]!) if (--dominatedBy[j]! === 0) next.push(j);
    }
    front = next;
  }
  return rank;
}

/**
 * The loss vector (lower is better) of a record's metrics for `objectives`; `undefined` when a
 * metric is missing or not finite.
 */
export function objectiveLosses(
  metrics: Readonly<Record<string, number>> | undefined,
  objectives: readonly ObjectiveSpec[],
): number[] | undefined {
  if (!metrics) return undefined;
  const out: number[] = [];
  for (const o of objectives) {
    const v = metrics[o.metric];
    if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
    out.push(o.direction === 'minimize' ? v : -v);
  }
  return out;
}

/**
 * The hypervolume (area, volume) dominated by loss vectors and bounded by `reference` (lower is
 * better; points not strictly below the reference in every objective add nothing). Exact: a sweep
 * in 2-D, inclusion by slices (HSO, While et al. 2006) above; fine for the fronts of a loop (tens of points).
 */
export function hypervolume(points: readonly (readonly number[])[], reference: readonly number[]): number {
  const inside = points.filter((p) => p.every((v, i) => v < reference[i]!));
  if (inside.length === 0) return 0;
  const d = reference.length;
  if (d === 1) return reference[0]! - Math.min(...inside.map((p) => p[0]!));
  const sorted = [...inside].sort((a, b) => a[d - 1]! - b[d - 1]!);
  let volume = 0;
  for (let i = 0; i < sorted.length; i++) {
    const top = i + 1 < sorted.length ? sorted[i + 1]![d - 1]! : reference[d - 1]!;
    const height = top - sorted[i]![d - 1]!;
    if (height <= 0) continue;
    const slice = sorted.slice(0, i + 1).map((p) => p.slice(0, d - 1));
    volume += height * hypervolume(slice, reference.slice(0, d - 1));
  }
  return volume;
}
