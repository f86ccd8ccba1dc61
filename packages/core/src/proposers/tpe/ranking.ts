import type { RandomSource } from '../../contracts/types.js';
import { nonDominationRanks } from '../../policies/pareto-math.js';
import type { Observation } from './observations.js';

/** Weight of the sum term of the augmented Chebyshev scalarisation (ParEGO, Knowles 2006). */
const AUGMENT = 0.05;

/**
 * The model's order of the evaluated rows, best first, with each row's `loss` as the model fits it:
 *
 * - Constraints (as Optuna's constrained TPE, `TPESampler(constraints_func=...)`): every feasible row
 *   (total violation 0, or unknown) comes before every infeasible one, and infeasible rows are
 *   ordered by their total violation, so the "good" group is feasible while feasible rows exist and
 *   an infeasible row is always "bad" next to a feasible one.
 * - Several objectives (rows with `objectives`): rows are ordered by non-domination rank (MOTPE's
 *   split, Ozaki et al. 2020), ties within a rank by a scalarisation with weights drawn at random
 *   for this proposal: the augmented Chebyshev function of the objectives min-max normalised over
 *   the rows (ParEGO, Knowles 2006). That scalarisation also becomes each row's `loss`, so the GP
 *   surrogate maximises expected improvement of one random scalarisation per proposal (ParEGO);
 *   over proposals the weights sweep the front. Rows without every objective are left out.
 * - Pruned runs whose final score could not be estimated (`prunedAt`; issue 27, as Optuna's TPE
 *   orders `TrialState.PRUNED`; an estimated one ranks by its estimate): after every run that
 *   finished at full budget, later-pruned before earlier-pruned, then by their last report. A report
 *   at an early step is not comparable with a final score (a model still learning scores worse), so a
 *   pruned run is never "good" next to a finished one, yet one pruned late ranks above one pruned early.
 * - Otherwise by loss, ties by iteration (the single-objective order).
 */
export function rankObservations(rows: readonly Observation[], random: RandomSource): Observation[] {
  const multi = rows.some((o) => o.objectives !== undefined);
  let ranked: Observation[] = [...rows];
  const rank = new Map<Observation, number>();
  if (multi) {
    ranked = rows.filter((o) => o.objectives !== undefined);
    const m = ranked[0]?.objectives?.length ?? 0;
    const lo = Array.from({ length: m }, (_, j) => Math.min(...ranked.map((o) => o.objectives![j]!)));
    const hi = Array.from({ length: m }, (_, j) => Math.max(...ranked.map((o) => o.objectives![j]!)));
    const raw = Array.from({ length: m }, () => -Math.log(1 - random.next()));
    const sum = raw.reduce((a, b) => a + b, 0);
    const weights = raw.map((w) => w / sum);
    ranked = ranked.map((o) => {
      const z = o.objectives!.map((v, j) => (hi[j]! > lo[j]! ? (v - lo[j]!) / (hi[j]! - lo[j]!) : 0));
      const terms = z.map((v, j) => weights[j]! * v);
      return { ...o, loss: Math.max(...terms) + AUGMENT * terms.reduce((a, b) => a + b, 0) };
    });
    const feasible = ranked.filter((o) => !(o.violation! > 0));
    nonDominationRanks(feasible.map((o) => o.objectives!)).forEach((r, i) => rank.set(feasible[i]!, r));
  }
  const violation = (o: Observation) => o.violation ?? 0;
  const byViolation = (a: Observation, b: Observation) =>
    violation(a) === violation(b) ? 0 : violation(a) < violation(b) ? -1 : 1;
  // A finished run counts as pruned at the last step (Infinity): pruned later ranks higher.
  const step = (o: Observation) => o.prunedAt ?? Infinity;
  const byPruning = (a: Observation, b: Observation) => (step(a) === step(b) ? 0 : step(a) > step(b) ? -1 : 1);
  return ranked.sort(
    (a, b) =>
      byViolation(a, b) ||
      byPruning(a, b) ||
      (rank.get(a) ?? 0) - (rank.get(b) ?? 0) ||
      a.loss! - b.loss! ||
      a.iteration - b.iteration,
  );
}

/**
 * The losses the Gaussian process fits, parallel to `ranked` (issue 27): a finished row's own loss
 * (a pruned row's estimated final score is one, see `prunedEstimate`); a pruned row without an
 * estimate (`prunedAt`) the worst loss of the finished rows (its own report when none finished). A report
 * from an early step is not a final score (a model still learning scores worse), so taking it as one
 * widens the model's range with values no finished run has, its variance grows everywhere, and
 * expected improvement drifts to far, untried regions. The pruned run is known to be no better than
 * the incumbent was; at the worst finished loss it tells the model "bad here" on the scale of final
 * scores, as a pending candidate's constant lie does.
 */
export function modelLosses(ranked: readonly Observation[]): number[] {
  const finished = ranked.filter((o) => o.prunedAt === undefined).map((o) => o.loss!);
  const worst = finished.length > 0 ? Math.max(...finished) : undefined;
  return ranked.map((o) => (o.prunedAt !== undefined && worst !== undefined ? worst : o.loss!));
}
