import type { IterationRecord } from '../contracts/iteration-record.js';
import type { ConstraintsFunction } from './pareto-math.js';

/** One violated constraint of one row. */
export interface RowViolation {
  /** The row's iteration. */
  readonly iteration: number;
  /** The constraint's name (`constraintNames[i]`, else `constraint <i + 1>`). */
  readonly constraint: string;
  /** By how much it is violated: the constraint value, > 0. */
  readonly amount: number;
}

/** Every violated constraint of the scored rows of `history`, in row order (a constraints function's values > 0). */
export function rowViolations(
  history: readonly IterationRecord[],
  constraints: ConstraintsFunction,
  names: readonly string[] = [],
): RowViolation[] {
  const out: RowViolation[] = [];
  for (const row of history) {
    if (row.score === null) continue;
    (constraints(row) ?? []).forEach((v, i) => {
      if (v > 0 || Number.isNaN(v))
        out.push({
          iteration: row.iteration,
          constraint: names[i] ?? `constraint ${i + 1}`,
          amount: Number.isNaN(v) ? Infinity : v,
        });
    });
  }
  return out;
}

/**
 * The prompt's block of constraint violations: a heading, then one line per violated constraint of
 * the history's rows (`iteration 3 (lr 0.01 -> 0.1): latency_ms violated by 42`); `''` when none.
 */
export function formatViolations(
  history: readonly IterationRecord[],
  constraints: ConstraintsFunction,
  names: readonly string[] = [],
): string {
  const rows = new Map(history.map((r) => [r.iteration, r]));
  const lines = rowViolations(history, constraints, names).map(
    (v) =>
      `iteration ${v.iteration} (${rows.get(v.iteration)?.description ?? ''}): ` +
      `${v.constraint} violated by ${Number(v.amount.toPrecision(6))}`,
  );
  return lines.length === 0
    ? ''
    : ['## Constraint violations (a candidate that violates a constraint is not kept)', ...lines].join('\n');
}
