import type { IterationRecord } from '../../contracts/iteration-record.js';
import {
  objectiveLosses,
  totalViolation,
  type ConstraintsFunction,
  type ObjectiveSpec,
} from '../../policies/pareto-math.js';
import type { Direction } from '../../contracts/types.js';
import { applyChanges, parseChanges, type ParameterChange } from './description.js';
import { prunedEstimate } from './pruned-estimate.js';
import type { ParameterConfig } from './space.js';

/** One evaluated (or crashed) config, rebuilt from a results row. */
export interface Observation {
  /** The row's iteration (0 = baseline). */
  readonly iteration: number;
  /** The full config the row evaluated. */
  readonly config: ParameterConfig;
  /** The score as a loss (lower is better: `-score` when maximizing); `undefined` for a crash. */
  readonly loss?: number;
  /** Total constraint violation (0 = feasible; see `totalViolation`), when the proposer has `constraints`. */
  readonly violation?: number;
  /** The largest constraint value (`<= 0` feasible): what a feasibility model fits. */
  readonly constraint?: number;
  /** The loss vector of a multi-objective proposer's `objectives` (lower is better), when every metric is there. */
  readonly objectives?: readonly number[];
  /** The row's cost (`TpeProposerOptions.cost`), when it has a finite positive one. */
  readonly cost?: number;
  /**
   * The step a pruned run was stopped at, when its final score could not be estimated (its `loss`
   * is then that step's report); absent for a run that finished or whose final score was estimated.
   */
  readonly prunedAt?: number;
  /** The step a pruned run was stopped at, when its `loss` is the estimated final score (`prunedEstimate`). */
  readonly estimatedFrom?: number;
}

/** What the proposer reads from a row besides its score: constraint values and several objectives. */
export interface ObservationFacts {
  readonly constraints?: ConstraintsFunction;
  readonly objectives?: readonly ObjectiveSpec[];
  readonly cost?: (record: IterationRecord) => number | undefined;
}

type Facts = Pick<Observation, 'violation' | 'constraint' | 'objectives' | 'cost'>;

function factsOf(row: IterationRecord, facts: ObservationFacts): Facts {
  const out: { violation?: number; constraint?: number; objectives?: readonly number[]; cost?: number } = {};
  if (facts.constraints) {
    const values = facts.constraints(row);
    if (values && values.length > 0) {
      out.violation = totalViolation(values);
      out.constraint = Math.max(...values.map((v) => (Number.isNaN(v) ? Infinity : v)));
    }
  }
  if (facts.objectives) {
    const losses = objectiveLosses(row.data?.metrics, facts.objectives);
    if (losses) out.objectives = losses;
  }
  if (facts.cost) {
    const cost = facts.cost(row);
    if (typeof cost === 'number' && Number.isFinite(cost) && cost > 0) out.cost = cost;
  }
  return out;
}

/**
 * Rebuilds every evaluated config of a run from its rows, so the model is the same after a resume
 * as in the uninterrupted run (nothing but the results log and its record sidecar is needed).
 *
 * How: a row whose record carries the proposer's `params` (`CandidateData.params`, written by this
 * proposer) evaluated exactly those. Otherwise its description names its changes (`key from -> to`,
 * see `describeChanges`): the config at proposal time (`current`, the incumbent: the engine reverts
 * before proposing) is walked back through the kept rows' changes (their `from` values) to the
 * baseline's config; then forward, each row's config is its incumbent with its changes applied, and
 * a kept row's config becomes the incumbent. The `params` matter on the async schedule, where a
 * candidate may have started from an older incumbent than the one before its row: its changes
 * applied to the newer one would place it where no run went. Rows that are not ours (another
 * proposer's, a proposer failure) are skipped; a kept row that is not ours ends the walk back (older
 * rows are not used). Rows without a score (rejected, not evaluated, halted) are skipped except
 * crashes and runs pruned on a non-finite report, which are returned without a loss (the model
 * avoids their region). A pruned run's loss is the final score extrapolated from the incumbent's
 * curve (`prunedEstimate`, issue 27; `estimatedFrom` names the step); without the incumbent's curve
 * it is the run's last report and `prunedAt` makes the ranking put it after every run that finished
 * (see `rankObservations`).
 * `finished` runs (ended, row not written yet: `ProposalContext.finished`) follow the rows, placed
 * by their `params` only.
 *
 * @param history - the run's rows, baseline first (`ProposalContext.history`)
 * @param current - the config as it is now (the incumbent)
 * @param keys - the space's parameter names
 * @param facts - constraint values and objectives read from each scored row's record
 * @param finished - runs that ended and wait for their row (`ProposalContext.finished`) @default none
 */
export function rebuildObservations(
  history: readonly IterationRecord[],
  current: ParameterConfig,
  keys: ReadonlySet<string>,
  direction: Direction,
  facts: ObservationFacts = {},
  finished: readonly IterationRecord[] = [],
): Observation[] {
  const parsed = history.map((r) => (r.status === 'baseline' ? [] : parseChanges(r.description, keys)));
  // Walk back through kept rows to the oldest config we can reconstruct.
  let start = 0;
  let config: Record<string, unknown> = { ...current };
  for (let i = history.length - 1; i >= 0; i--) {
    const row = history[i]!;
    if (row.status !== 'kept') continue;
    const changes = parsed[i];
    if (!changes) {
      start = i + 1;
      break;
    }
    // With its params the config it started from is known whatever came between.
    const params = row.data?.params;
    config = applyChanges(params ? withParams(config, params, keys) : config, changes, 'from');
  }
  const out: Observation[] = [];
  let incumbent: Record<string, unknown> = config;
  // The incumbent's row, whose curve a pruned run's final score is extrapolated from.
  let incumbentRow: IterationRecord | undefined = start > 0 ? history[start - 1] : undefined;
  for (let i = start; i < history.length; i++) {
    const row = history[i]!;
    const changes: ParameterChange[] | undefined = parsed[i];
    if (row.status === 'baseline') {
      incumbentRow = row;
      if (row.score !== null && Number.isFinite(row.score) && start === 0)
        out.push({
          iteration: row.iteration,
          config: incumbent,
          loss: lossOf(row.score, direction),
          ...factsOf(row, facts),
        });
      continue;
    }
    if (!changes) continue;
    const params = row.data?.params;
    const evaluated = params ? withParams(incumbent, params, keys) : applyChanges(incumbent, changes);
    const o = observationOf(row, evaluated, direction, facts, comparedIncumbent(row, history) ?? incumbentRow);
    if (o) out.push(o);
    if (row.status === 'kept') {
      incumbent = evaluated;
      incumbentRow = row;
    }
  }
  for (const row of finished) {
    const params = row.data?.params;
    const config = params ? withParams(incumbent, params, keys) : undefined;
    const reference = comparedIncumbent(row, history) ?? incumbentRow;
    const o = config ? observationOf(row, config, direction, facts, reference) : undefined;
    if (o) out.push(o);
  }
  return out;
}

/**
 * The row a pruned run was compared against (`data.pruned.incumbent`), when recorded and in the
 * history: on the async schedule a newer keep may have come between its start and its row.
 */
function comparedIncumbent(row: IterationRecord, history: readonly IterationRecord[]): IterationRecord | undefined {
  const iteration = row.data?.pruned?.incumbent;
  return typeof iteration === 'number' ? history.find((r) => r.iteration === iteration) : undefined;
}

const lossOf = (score: number, direction: Direction) => (direction === 'minimize' ? score : -score);

/** `base` with the space's parameters as in `params` (a parameter `params` lacks is absent: its `when` failed). */
function withParams(base: ParameterConfig, params: Readonly<Record<string, unknown>>, keys: ReadonlySet<string>) {
  return applyChanges(
    base,
    [...keys].map((key) => ({ key, from: base[key], to: params[key] })),
  );
}

/** The observation a run's row (or finished record) gives, evaluated at `config`; undefined for none. */
function observationOf(
  row: IterationRecord,
  config: ParameterConfig,
  direction: Direction,
  facts: ObservationFacts,
  incumbent: IterationRecord | undefined,
): Observation | undefined {
  // A pruned run's loss is its final score extrapolated from the incumbent's curve, else it ranks by
  // its last report (issue 27, as Optuna's TPE does); one pruned on a non-finite report has no score
  // and counts as a crash would: the model avoids its region.
  const prunedNonFinite = row.data?.pruned !== undefined && (row.score === null || !Number.isFinite(row.score));
  if (row.status === 'crash' || prunedNonFinite) return { iteration: row.iteration, config };
  if (row.score === null || !Number.isFinite(row.score) || (row.status !== 'kept' && row.status !== 'reverted'))
    return undefined;
  const pruned = row.data?.pruned;
  const estimate = pruned ? prunedEstimate(pruned, incumbent, direction) : undefined;
  const step = pruned ? { [estimate === undefined ? 'prunedAt' : 'estimatedFrom']: pruned.step } : {};
  return {
    iteration: row.iteration,
    config,
    loss: lossOf(estimate ?? row.score, direction),
    ...factsOf(row, facts),
    ...step,
  };
}
