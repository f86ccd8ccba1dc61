import { formatValue, isWorse, valueAtStep, type PruneInput, type Pruner } from '../contracts/pruner.js';

/** Options of {@link successiveHalvingPruner}. */
export interface SuccessiveHalvingPrunerOptions {
  /** The first rung's step (the smallest budget a run gets before it is judged), in report steps. */
  minStep: number;
  /** η: a run goes on past a rung only when it is in the top 1/η of the runs that reached it. @default 3 */
  reductionFactor?: number;
  /** s: the rungs are at `minStep × η^(s + k)`, k = 0, 1, ... (Hyperband's brackets differ in s). @default 0 */
  minEarlyStoppingRate?: number;
  /** Runs (this one included) that must have reached a rung before it prunes there. @default 0 */
  bootstrapCount?: number;
}

/**
 * Multi-fidelity by asynchronous successive halving (ASHA, issue 27 item 3; as Optuna's
 * SuccessiveHalvingPruner): the step budget is cut into rungs at `minStep × η^(s + k)`, and a
 * run's first report at or past a rung decides whether it is promoted to the next one: only when
 * its value there is in the top ⌊n/η⌋ (at least the best) of the n runs that reached the rung (the
 * earlier rows' curves, pruned ones included, and this run). With parallel candidates on the async
 * schedule this is ASHA: runs are promoted as they arrive, no batch waits. Only a run that reaches
 * its end is a full-budget run, so a lower fidelity never replaces the incumbent.
 *
 * @throws {RangeError} for a non-positive `minStep`, a `reductionFactor` below 2, a negative
 *   `minEarlyStoppingRate` or `bootstrapCount`.
 */
export function successiveHalvingPruner(options: SuccessiveHalvingPrunerOptions): Pruner {
  const rung = rungsOf(options);
  return {
    name: 'successive-halving',
    check: (input) => judgeAtRung(input, rung, options.reductionFactor ?? 3, options.bootstrapCount ?? 0, () => true),
  };
}

/** Options of {@link hyperbandPruner}. */
export interface HyperbandPrunerOptions {
  /** The smallest budget, in report steps (the first rung of the most aggressive bracket). */
  minStep: number;
  /** The full budget, in report steps. */
  maxStep: number;
  /** η. @default 3 */
  reductionFactor?: number;
}

/**
 * Hyperband over the step budget (issue 27 item 3; as Optuna's HyperbandPruner): ⌊log_η(max/min)⌋ + 1
 * brackets of successive halving, bracket b with its first rung at `minStep × η^b`; iteration n
 * runs in bracket `n mod brackets`, and competes only with the runs of its bracket. Hedges between
 * pruning early and often (bracket 0) and judging late (the last bracket never prunes before the
 * full budget).
 *
 * @throws {RangeError} for a `minStep` not below `maxStep`, or a `reductionFactor` below 2.
 */
export function hyperbandPruner(options: HyperbandPrunerOptions): Pruner {
  const eta = options.reductionFactor ?? 3;
  if (!(options.minStep > 0 && options.maxStep > options.minStep))
    throw new RangeError(`hyperband needs 0 < minStep < maxStep, got ${options.minStep} and ${options.maxStep}`);
  const brackets = Math.floor(Math.log(options.maxStep / options.minStep) / Math.log(eta) + 1e-9) + 1;
  const rungs = Array.from({ length: brackets }, (_, b) =>
    rungsOf({ minStep: options.minStep, reductionFactor: eta, minEarlyStoppingRate: b }),
  );
  return {
    name: 'hyperband',
    check: (input) => {
      const bracket = input.iteration % brackets;
      return judgeAtRung(input, rungs[bracket]!, eta, 0, (iteration) => iteration % brackets === bracket);
    },
  };
}

/** The rung of `step`: the largest `minStep × η^(s + k)` at or below it, or `undefined` before the first. */
function rungsOf(o: SuccessiveHalvingPrunerOptions): (step: number) => number | undefined {
  const eta = o.reductionFactor ?? 3;
  const s = o.minEarlyStoppingRate ?? 0;
  if (!(o.minStep > 0)) throw new RangeError(`minStep must be above 0, got ${o.minStep}`);
  if (!(eta >= 2)) throw new RangeError(`reductionFactor must be at least 2, got ${eta}`);
  if (!(s >= 0) || !Number.isInteger(s))
    throw new RangeError(`minEarlyStoppingRate must be a whole number of at least 0, got ${s}`);
  if ((o.bootstrapCount ?? 0) < 0) throw new RangeError(`bootstrapCount must be at least 0, got ${o.bootstrapCount}`);
  return (step) => {
    let r = o.minStep * eta ** s;
    if (step < r) return undefined;
    while (r * eta <= step) r *= eta;
    return r;
  };
}

/** Judges a run's first report at or past a rung against the runs (of `competes`) that reached it. */
function judgeAtRung(
  input: PruneInput,
  rungOf: (step: number) => number | undefined,
  eta: number,
  bootstrap: number,
  competes: (iteration: number) => boolean,
) {
  const { step, value, reports, history, direction } = input;
  const rung = rungOf(step);
  if (rung === undefined || !Number.isFinite(value)) return undefined;
  const previous = reports.length > 1 ? reports[reports.length - 2]!.step : -Infinity;
  if (previous >= rung) return undefined; // this rung was judged at an earlier report
  const competing = [value];
  for (const row of history) {
    if (row.iteration === input.iteration || !competes(row.iteration)) continue;
    const at = valueAtStep(row.data?.reports, rung);
    if (at !== undefined && Number.isFinite(at)) competing.push(at);
  }
  if (competing.length < bootstrap) return undefined;
  competing.sort((a, b) => (direction === 'minimize' ? a - b : b - a));
  const bar = competing[Math.max(0, Math.floor(competing.length / eta) - 1)]!;
  if (!isWorse(value, bar, direction)) return undefined;
  return {
    reason:
      `${formatValue(value)} not in the top 1/${eta} at step ${rung} ` +
      `(bar ${formatValue(bar)} of ${competing.length} runs)`,
  };
}
