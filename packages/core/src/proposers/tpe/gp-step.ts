import type { RandomSource } from '../../contracts/types.js';
import { normalCdf } from '../../stats/distributions.js';
import { expectedImprovement, fitGaussianProcess, fitHyperparameters, type GpHyperparameters } from './gp.js';
import { localMove, refineMove, uniformPoint } from './moves.js';
import type { Axis, ParzenEstimator, Point } from './parzen.js';

/** What one GP-ranked step draws its candidates from (see `chooseConfig`). */
export interface GpStepInput {
  readonly axes: readonly Axis[];
  /** Evaluated points, lowest loss first, and their losses. */
  readonly points: readonly Point[];
  readonly losses: readonly number[];
  /** Pending proposals of a parallel batch: they join the model at the worst loss seen (a constant liar). */
  readonly lies: readonly Point[];
  /** The good rows' Parzen density (candidates are drawn from it, as a TPE step's are). */
  readonly good: ParzenEstimator;
  /** Refinement step (normalised units). */
  readonly step: number;
  readonly candidates: number;
  /** A candidate's config when it is new and not next to a crash, else undefined. */
  readonly fresh: (u: number[]) => Record<string, unknown> | undefined;
  /** The model point of a config (rounded and with inactive parameters undefined, as evaluated rows are). */
  readonly pointOf: (config: Record<string, unknown>) => Point;
  readonly random: RandomSource;
  /** The evaluated points and losses in iteration order (hyperparameters are fitted on a prefix of them). */
  readonly history: { readonly points: readonly Point[]; readonly losses: readonly number[] };
  /** Hyperparameters already fitted, by prefix key (a cache: the fit is a pure function of the prefix). */
  readonly fitted: Map<string, GpHyperparameters>;
  /**
   * With constraints: each evaluated point's largest constraint value (`<= 0` feasible), parallel to
   * `points`, and in iteration order parallel to `history.points`. A second GP models it, and each
   * candidate's expected improvement is multiplied by its probability of feasibility (constrained
   * EI, Gardner et al. 2014); the incumbent target is taken over feasible points only.
   */
  readonly feasibility?: {
    /** Parallel to `points`; `undefined` where a row has no constraint values (the baseline): left out of that GP. */
    readonly constraints: readonly (number | undefined)[];
    /** Parallel to `history.points`. */
    readonly history: readonly (number | undefined)[];
  };
  /**
   * With a cost (`TpeProposerOptions.cost`): each evaluated point's cost, parallel to `points`, and
   * in iteration order parallel to `history.points` (`undefined` where a row has none). With three
   * or more, a GP models log cost and, among the candidates within {@link COST_GUARD} of the best
   * expected improvement, the highest expected improvement per predicted cost wins.
   */
  readonly cost?: {
    readonly costs: readonly (number | undefined)[];
    readonly history: readonly (number | undefined)[];
  };
}

/** A GP on log cost over the points that have one (at least 3), or undefined. */
function costModel(input: GpStepInput, points: readonly Point[]) {
  const c = input.cost;
  if (!c) return undefined;
  const known = points.map((_, i) => i).filter((i) => c.costs[i] !== undefined);
  if (known.length < 3) return undefined;
  const inOrder = input.history.points.map((_, i) => i).filter((i) => c.history[i] !== undefined);
  const series = {
    points: inOrder.map((i) => input.history.points[i]!),
    losses: inOrder.map((i) => Math.log(c.history[i]!)),
  };
  return fitGaussianProcess(
    input.axes,
    known.map((i) => points[i]!),
    known.map((i) => Math.log(c.costs[i]!)),
    hyperparameters(input, series, 'cost'),
  );
}

/**
 * The number of rows whose hyperparameters are used with `n` rows: all of them up to 12, then the
 * largest of 12, 15, 18, 23, ... (about x1.25 each) not above `n`, so a run refits them about 20
 * times in 100 rows, not every time. (A fit is a pure function of that prefix, so a resumed run
 * uses the same ones.)
 */
export function hyperparameterPrefix(n: number): number {
  let m = 12;
  if (n <= m) return n;
  while (Math.floor(m * 1.25) <= Math.min(n, MAX_GP_ROWS)) m = Math.floor(m * 1.25);
  return m;
}

/**
 * With a cost, only draws whose expected improvement is at least this share of the best draw's are
 * ranked per unit of cost: cost breaks near-ties in promise, it does not buy hopeless cheap configs.
 */
const COST_GUARD = 0.5;

/**
 * At most this many rows enter the GP (the lowest losses; hyperparameters from at most the first
 * this many): a fit costs O(n³), so a run of thousands of iterations stays at a few ms per proposal.
 */
export const MAX_GP_ROWS = 256;

function hyperparameters(
  input: GpStepInput,
  series: { readonly points: readonly Point[]; readonly losses: readonly number[] } = input.history,
  tag = '',
): GpHyperparameters {
  const m = hyperparameterPrefix(series.points.length);
  const points = series.points.slice(0, m);
  const losses = series.losses.slice(0, m);
  const key = JSON.stringify([tag, points, losses]);
  let hyper = input.fitted.get(key);
  if (!hyper) {
    hyper = fitHyperparameters(input.axes, points, losses);
    if (input.fitted.size > 64) input.fitted.clear();
    input.fitted.set(key, hyper);
  }
  return hyper;
}

/**
 * One proposal ranked by a Gaussian process: `candidates` draws from the good density, as many
 * refinement moves around the row of lowest posterior mean (under noise, not the luckiest row),
 * half as many local moves around it and a quarter uniform draws; of those not evaluated before,
 * the one with the highest expected improvement below the lowest posterior mean at an evaluated
 * point (the "plug-in" incumbent of noisy EI, Picheny et al. 2013). `undefined` when no draw is new.
 */
export function gpChoice(input: GpStepInput): Record<string, unknown> | undefined {
  const { axes, lies, good, step, candidates, fresh, pointOf, random } = input;
  const points = input.points.slice(0, MAX_GP_ROWS);
  const losses = input.losses.slice(0, MAX_GP_ROWS);
  const worst = Math.max(...losses);
  const gp = fitGaussianProcess(
    axes,
    [...points, ...lies],
    [...losses, ...lies.map(() => worst)],
    hyperparameters(input),
  );
  const f = input.feasibility;
  const constraints = f?.constraints.slice(0, MAX_GP_ROWS);
  const known = points.map((_, i) => i).filter((i) => constraints?.[i] !== undefined);
  const values = known.map((i) => constraints![i]!);
  const knownHistory = f ? input.history.points.map((_, i) => i).filter((i) => f.history[i] !== undefined) : [];
  const series = {
    points: knownHistory.map((i) => input.history.points[i]!),
    losses: knownHistory.map((i) => f!.history[i]!),
  };
  // Constant liar for the constraint too: a pending point counts as the least feasible seen.
  const cgp =
    f && known.length >= 2
      ? fitGaussianProcess(
          axes,
          [...known.map((i) => points[i]!), ...lies],
          [...values, ...lies.map(() => Math.max(...values))],
          hyperparameters(input, series, 'constraint'),
        )
      : undefined;
  const costGp = costModel(input, points);
  const feasible = (i: number) => constraints?.[i] === undefined || constraints[i]! <= 0;
  const anyFeasible = points.some((_, i) => feasible(i));
  let centre = 0;
  let target = Infinity;
  points.forEach((p, i) => {
    if (anyFeasible && !feasible(i)) return;
    const { mean } = gp.predict(p);
    if (mean < target) {
      target = mean;
      centre = i;
    }
  });
  const ranked = [points[centre]!, ...points.filter((_, i) => i !== centre)];
  const draws: number[][] = [];
  for (let i = 0; i < candidates; i++) draws.push(good.sample(random));
  for (let i = 0; i < candidates; i++) draws.push(refineMove(axes, ranked, step, random));
  for (let i = 0; i < candidates / 2; i++) draws.push(localMove(axes, ranked[0]!, good.bandwidths, random));
  for (let i = 0; i < candidates / 4; i++) draws.push(uniformPoint(axes, random));
  const scored: { c: Record<string, unknown>; x: Point; ei: number }[] = [];
  for (const u of draws) {
    const c = fresh(u);
    if (!c) continue;
    const x = pointOf(c);
    const { mean, sd } = gp.predict(x);
    let ei = anyFeasible ? expectedImprovement(mean, sd, target) : 1;
    if (cgp) {
      const g = cgp.predict(x);
      ei *= g.sd > 1e-12 ? normalCdf(-g.mean / g.sd) : g.mean <= 0 ? 1 : 0;
    }
    scored.push({ c, x, ei });
  }
  if (scored.length === 0) return undefined;
  const top = Math.max(...scored.map((s) => s.ei));
  // Per unit of predicted cost (exp of the log-cost GP's mean: its median), among the draws within
  // COST_GUARD of the best expected improvement only: plain EI per second proposed cheap, hopeless
  // configs on the ML demo (seed 1: 40 of 48 pruned, no keep after row 9; docs/proposers.md).
  const pool = costGp ? scored.filter((s) => s.ei >= COST_GUARD * top) : scored;
  const rates = pool.map((s) => (costGp ? s.ei / Math.exp(costGp.predict(s.x).mean) : s.ei));
  return pool[rates.indexOf(Math.max(...rates))]!.c;
}
