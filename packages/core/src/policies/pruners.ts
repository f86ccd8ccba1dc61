import { median } from '../stats/statistics.js';
import {
  formatValue,
  isWorse,
  valueAtStep,
  type PruneInput,
  type Pruner,
  type PruneVerdict,
} from '../contracts/pruner.js';

/** Options of {@link incumbentCurvePruner}. */
export interface IncumbentCurvePrunerOptions {
  /**
   * How much worse than the incumbent at the same step a run may be, as a fraction of the
   * incumbent's value (0.05 = 5% worse still runs on). @default 0.05
   */
  margin?: number;
  /** Reports before this step never prune (early curves are noisy). @default 0 */
  warmupSteps?: number;
}

/**
 * Prunes a run whose value at a step is worse than the incumbent's curve at the same step by
 * more than `margin` (the keep/revert comparison, made early: issue 27). Needs the incumbent's
 * row to carry reports; without them it never prunes.
 *
 * @throws {RangeError} for a negative or non-finite `margin` or `warmupSteps`.
 */
export function incumbentCurvePruner(options: IncumbentCurvePrunerOptions = {}): Pruner {
  const margin = nonNegative(options.margin ?? 0.05, 'margin');
  const warmup = nonNegative(options.warmupSteps ?? 0, 'warmupSteps');
  return {
    name: 'incumbent-curve',
    check: ({ step, value, incumbent, direction }) => {
      if (step < warmup || !Number.isFinite(value)) return undefined;
      const at = valueAtStep(incumbent, step);
      if (at === undefined) return undefined;
      const limit = direction === 'minimize' ? at + Math.abs(at) * margin : at - Math.abs(at) * margin;
      return isWorse(value, limit, direction)
        ? { reason: `${formatValue(value)} vs incumbent ${formatValue(at)}` }
        : undefined;
    },
  };
}

/** Options of {@link medianPruner}. */
export interface MedianPrunerOptions {
  /** Reports before this step never prune. @default 0 */
  warmupSteps?: number;
  /** Earlier runs that must have reached the step before it prunes (Optuna's n_startup_trials). @default 5 */
  minRuns?: number;
}

/**
 * Prunes a run whose value at a step is worse than the median of earlier runs at the same step
 * (Optuna's MedianPruner). Earlier runs are the rows whose curve reached the step and that were
 * not pruned themselves.
 *
 * @throws {RangeError} for a negative `warmupSteps` or a `minRuns` below 1.
 */
export function medianPruner(options: MedianPrunerOptions = {}): Pruner {
  const warmup = nonNegative(options.warmupSteps ?? 0, 'warmupSteps');
  const minRuns = options.minRuns ?? 5;
  if (!Number.isInteger(minRuns) || minRuns < 1)
    throw new RangeError(`minRuns must be an integer of at least 1, got ${minRuns}`);
  return {
    name: 'median',
    check: ({ step, value, history, direction }) => {
      if (step < warmup || !Number.isFinite(value)) return undefined;
      const peers: number[] = [];
      for (const row of history) {
        if (row.data?.pruned !== undefined) continue;
        const at = valueAtStep(row.data?.reports, step);
        if (at !== undefined && Number.isFinite(at)) peers.push(at);
      }
      if (peers.length < minRuns) return undefined;
      const m = median(peers);
      return isWorse(value, m, direction)
        ? { reason: `${formatValue(value)} vs median ${formatValue(m)} of ${peers.length} runs` }
        : undefined;
    },
  };
}

/** Options of {@link patiencePruner}. */
export interface PatiencePrunerOptions {
  /** Reports in a row without an improvement of the run's own best that prune it. */
  patience: number;
  /** The least change that counts as an improvement, in the objective's units. @default 0 */
  minDelta?: number;
  /** Reports before this step never prune. @default 0 */
  warmupSteps?: number;
}

/**
 * Prunes a run whose own best value has not improved by `minDelta` in its last `patience`
 * reports (a stalled or diverging curve), whatever the incumbent does.
 *
 * @throws {RangeError} for a `patience` below 1 or a negative `minDelta` / `warmupSteps`.
 */
export function patiencePruner(options: PatiencePrunerOptions): Pruner {
  const { patience } = options;
  if (!Number.isInteger(patience) || patience < 1)
    throw new RangeError(`patience must be an integer of at least 1, got ${patience}`);
  const minDelta = nonNegative(options.minDelta ?? 0, 'minDelta');
  const warmup = nonNegative(options.warmupSteps ?? 0, 'warmupSteps');
  return {
    name: 'patience',
    check: ({ step, reports, direction }) => {
      if (step < warmup || reports.length <= patience) return undefined;
      const before = reports
        .slice(0, reports.length - patience)
        .map((r) => r.value)
        .filter(Number.isFinite);
      const recent = reports
        .slice(reports.length - patience)
        .map((r) => r.value)
        .filter(Number.isFinite);
      if (before.length === 0) return undefined;
      const best = direction === 'minimize' ? Math.min(...before) : Math.max(...before);
      const improved = recent.some((v) => (direction === 'minimize' ? v < best - minDelta : v > best + minDelta));
      return improved ? undefined : { reason: `no progress in ${patience} reports (best ${formatValue(best)})` };
    },
  };
}

/** Prunes a run as soon as it reports a value that is NaN or infinite (a diverged training). */
export function nonFinitePruner(): Pruner {
  return {
    name: 'non-finite',
    check: ({ value }) => (Number.isFinite(value) ? undefined : { reason: `value ${value}` }),
  };
}

/** The first verdict of `pruners`, in order, with the pruner that gave it. */
export function firstPruneVerdict(
  pruners: readonly Pruner[],
  input: PruneInput,
): { pruner: Pruner; verdict: PruneVerdict } | undefined {
  for (const pruner of pruners) {
    const verdict = pruner.check(input);
    if (verdict) return { pruner, verdict };
  }
  return undefined;
}

function nonNegative(v: number, name: string): number {
  if (!Number.isFinite(v) || v < 0) throw new RangeError(`${name} must be a finite number of at least 0, got ${v}`);
  return v;
}
