import { normalCdf } from '../stats/distributions.js';

/**
 * How {@link createNoiseAwareKeepPolicy} shares its error rate over the looks of one decision
 * (issue 17: testing at the full alpha after every sample from `minSamples` to `maxSamples` keeps a
 * pure-noise candidate far more often than alpha).
 * - `obrien-fleming`: the Lan-DeMets O'Brien-Fleming-type spending function
 *   `alpha(t) = 2 - 2 Phi(z(1 - alpha/2) / sqrt(t))`: strict at early looks, close to alpha at the last;
 * - `pocock`: the Lan-DeMets Pocock-type function `alpha(t) = alpha ln(1 + (e - 1) t)`: about even;
 * - `none`: every look at the full alpha (the old rule; the false-keep rate exceeds alpha).
 */
export type AlphaSpending = 'obrien-fleming' | 'pocock' | 'none';

/** The standard normal quantile (bisection on `normalCdf`, to 1e-12). */
export function normalQuantile(p: number): number {
  let lo = -40;
  let hi = 40;
  for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2;
    if (normalCdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The cumulative one-sided error `alpha(t)` spent by information fraction `t` in [0, 1]. */
export function spentAlpha(spending: AlphaSpending, alpha: number, t: number): number {
  if (t <= 0) return 0;
  if (t >= 1 || spending === 'none') return alpha;
  if (spending === 'pocock') return alpha * Math.log(1 + (Math.E - 1) * t);
  return 2 - 2 * normalCdf(normalQuantile(1 - alpha / 2) / Math.sqrt(t));
}

/**
 * The one-sided level of the look at `n` candidate samples: `alpha(t_n) - alpha(t_(n-1))` with
 * `t_n = n / maxSamples` and looks at `minSamples, ..., maxSamples` (the first look spends
 * `alpha(t_minSamples)`). The levels of all looks sum to `alpha`, so by the union bound the chance
 * that any look keeps a candidate that is no better is at most `alpha`, whatever the dependence
 * between looks. With `none`, every look gets `alpha`.
 *
 * @param alpha - the one-sided error rate of one decision, in (0, 0.5)
 * @param n - the look's candidate sample count (clamped to [minSamples, maxSamples])
 */
export function lookAlpha(
  spending: AlphaSpending,
  alpha: number,
  n: number,
  minSamples: number,
  maxSamples: number,
): number {
  if (spending === 'none') return alpha;
  const k = Math.min(maxSamples, Math.max(minSamples, n));
  const before = k === minSamples ? 0 : spentAlpha(spending, alpha, (k - 1) / maxSamples);
  return Math.max(0, spentAlpha(spending, alpha, k / maxSamples) - before);
}
