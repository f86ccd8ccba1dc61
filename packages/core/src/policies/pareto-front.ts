import type { IterationRecord } from '../contracts/iteration-record.js';
import {
  dominates,
  objectiveLosses,
  totalViolation,
  type ConstraintsFunction,
  type ObjectiveSpec,
} from './pareto-math.js';

/** One state on a run's Pareto front. */
export interface ParetoPoint {
  /** The row's iteration (0 = baseline). */
  readonly iteration: number;
  /**
   * The candidate's id from the rollback strategy: with rollback-git a commit, reachable after a
   * discard as `refs/loop/discarded/<iteration>`; `''` when the strategy keeps none.
   */
  readonly candidateId: string;
  /** The row's status: `baseline`, `kept` or `reverted` (a non-dominated state need not be the incumbent). */
  readonly status: IterationRecord['status'];
  /** The objectives' values, by metric name, as the run measured them. */
  readonly values: Readonly<Record<string, number>>;
  /** The same as losses (lower is better), in `objectives` order. */
  readonly losses: readonly number[];
}

/** Options of {@link paretoFront}. */
export interface ParetoFrontOptions {
  /** Rows whose total violation is above 0 are never on the front. @default none */
  readonly constraints?: ConstraintsFunction;
}

/**
 * The Pareto front of a run: its evaluated states (the baseline, kept and reverted rows that carry
 * every objective in `data.metrics` and meet the constraints) that no other such state dominates.
 * Of equal points the earliest stays. Ordered by the first objective's loss. A pure function of the
 * rows, so a resumed run, `loop report` and the keep policy all see the same front.
 */
export function paretoFront(
  history: readonly IterationRecord[],
  objectives: readonly ObjectiveSpec[],
  options: ParetoFrontOptions = {},
): ParetoPoint[] {
  const points: ParetoPoint[] = [];
  for (const row of history) {
    if (row.status !== 'baseline' && row.status !== 'kept' && row.status !== 'reverted') continue;
    const losses = objectiveLosses(row.data?.metrics, objectives);
    if (!losses) continue;
    if (options.constraints && totalViolation(options.constraints(row)) > 0) continue;
    const values = Object.fromEntries(objectives.map((o) => [o.metric, row.data!.metrics![o.metric]!]));
    points.push({ iteration: row.iteration, candidateId: row.candidateId, status: row.status, values, losses });
  }
  const front = points.filter(
    (p, i) => !points.some((q, j) => dominates(q.losses, p.losses) || (j < i && sameLosses(p.losses, q.losses))),
  );
  return front.sort((a, b) => a.losses[0]! - b.losses[0]! || a.iteration - b.iteration);
}

/** True when two loss vectors are equal. */
export function sameLosses(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
