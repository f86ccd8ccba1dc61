/**
 * Summary statistics of the proposer benchmark: quantiles, the geometric mean, and a seeded
 * percentile bootstrap of the ratio of two medians (how far a printed ratio such as 0.97x can be
 * trusted).
 */
import { createSeededRandom } from '../../src/stats.js';

/** The `q` quantile (linear interpolation between order statistics) of a non-empty sample. */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo]! + (s[Math.min(s.length - 1, lo + 1)]! - s[lo]!) * (pos - lo);
}

/** The median of a non-empty sample. */
export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

/** The geometric mean of positive numbers (a ratio of 0 counts as 1e-12). */
export function geometricMean(xs: readonly number[]): number {
  return Math.exp(xs.reduce((a, x) => a + Math.log(Math.max(x, 1e-12)), 0) / xs.length);
}

/**
 * A 95% percentile-bootstrap interval of `median(a) / median(b)`: each of `resamples` rounds
 * draws both samples with replacement (independently: the seeds of two samplers are not paired),
 * seeded so that a re-run prints the same interval.
 */
export function bootstrapRatio(
  a: readonly number[],
  b: readonly number[],
  resamples = 2000,
  seed = 12345,
): [number, number] {
  const random = createSeededRandom(seed);
  const draw = (xs: readonly number[]) => median(Array.from(xs, () => xs[Math.floor(random.next() * xs.length)]!));
  const ratios = Array.from({ length: resamples }, () => draw(a) / Math.max(draw(b), 1e-300));
  return [quantile(ratios, 0.025), quantile(ratios, 0.975)];
}

/** A regret for the table: 3 significant digits, exponent form below 1e-3. */
export const fmt = (x: number): string => (x === 0 ? '0' : x < 1e-3 ? x.toExponential(2) : x.toPrecision(3));

/** A 95% percentile-bootstrap interval of the median of `xs` (seeded, like {@link bootstrapRatio}). */
export function bootstrapMedian(xs: readonly number[], resamples = 2000, seed = 54321): [number, number] {
  const random = createSeededRandom(seed);
  const medians = Array.from({ length: resamples }, () =>
    median(Array.from(xs, () => xs[Math.floor(random.next() * xs.length)]!)),
  );
  return [quantile(medians, 0.025), quantile(medians, 0.975)];
}
