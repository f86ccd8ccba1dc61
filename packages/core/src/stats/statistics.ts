import type { RandomSource } from '../contracts/types.js';
import { normalCdf, studentTCdf, studentTQuantile } from './distributions.js';

/** The spread of repeated samples of one state (the noise floor). Units are the score's. */
export interface SampleSummary {
  /** Number of samples. */
  readonly n: number;
  /** Arithmetic mean. */
  readonly mean: number;
  /** Sample standard deviation (n − 1 denominator); 0 when n < 2. */
  readonly sd: number;
  /**
   * Median absolute deviation from the median, scaled by 1.4826 so it estimates the standard
   * deviation of normal noise while ignoring outliers; 0 when n < 2.
   */
  readonly mad: number;
}

/** Mean of `xs` (NaN for an empty list). */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Sample variance of `xs` (n − 1 denominator); 0 when there are fewer than two values. */
export function variance(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) ** 2;
  return s / (xs.length - 1);
}

/** The median of `xs` (the mean of the two middle values for an even count). `xs` must not be empty. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * Summarises repeated samples: n, mean, standard deviation and the scaled MAD.
 *
 * @throws {RangeError} when `samples` is empty.
 */
export function summarizeSamples(samples: readonly number[]): SampleSummary {
  if (samples.length === 0) throw new RangeError('[loop] [statistics] summarizeSamples needs at least one sample');
  const med = median(samples);
  return {
    n: samples.length,
    mean: mean(samples),
    sd: Math.sqrt(variance(samples)),
    mad: samples.length < 2 ? 0 : 1.4826 * median(samples.map((x) => Math.abs(x - med))),
  };
}

// ---------------------------------------------------------------------------------------------
// Tests. Each takes "gains": values where positive means the candidate is better, so the
// direction has already been applied.

/** The result of comparing a candidate with an incumbent. */
export interface ComparisonResult {
  /** Estimated improvement (candidate over incumbent, positive = better), in score units. */
  readonly difference: number;
  /** Two-sided confidence interval of the improvement at the requested confidence, in score units. */
  readonly interval: readonly [number, number];
  /** One-sided p-value of "the candidate is not better" (small = clearly better). */
  readonly p: number;
  /** The test statistic (t, or z for Wilcoxon), when the test has one. */
  readonly statistic?: number;
  /** Degrees of freedom (Welch). */
  readonly df?: number;
}

/**
 * Welch's unequal-variance t-test of `improvement(candidate) − improvement(incumbent)`.
 * `candidate` and `incumbent` are samples already oriented so that larger is better.
 *
 * With a single incumbent sample the incumbent's variance is unknown; the candidate's variance
 * stands in for it (df = n_candidate − 1). With zero variance on both sides the difference is
 * exact: p is 0 when it is positive and 1 otherwise.
 *
 * @throws {RangeError} when the candidate has fewer than 2 samples or the incumbent none.
 */
export function welchTest(
  candidate: readonly number[],
  incumbent: readonly number[],
  confidence: number,
): ComparisonResult {
  const n1 = candidate.length;
  const n2 = incumbent.length;
  if (n1 < 2 || n2 < 1)
    throw new RangeError(
      `[loop] [statistics] welchTest needs at least 2 candidate samples and 1 incumbent sample (got ${n1} and ${n2})`,
    );
  const v1 = variance(candidate);
  const v2 = n2 >= 2 ? variance(incumbent) : v1;
  const difference = mean(candidate) - mean(incumbent);
  const a = v1 / n1;
  const b = v2 / n2;
  const se = Math.sqrt(a + b);
  if (se === 0 || !Number.isFinite(se)) {
    return { difference, interval: [difference, difference], p: difference > 0 ? 0 : 1 };
  }
  const df = n2 >= 2 ? (a + b) ** 2 / ((a * a) / (n1 - 1) + (b * b) / (n2 - 1)) : n1 - 1;
  const t = difference / se;
  const q = studentTQuantile(1 - (1 - confidence) / 2, df);
  return {
    difference,
    interval: [difference - q * se, difference + q * se],
    p: 1 - studentTCdf(t, df),
    statistic: t,
    df,
  };
}

/**
 * A percentile bootstrap confidence interval of the difference of means (candidate − incumbent,
 * samples oriented so that larger is better). Deterministic for a seeded `random`.
 *
 * Small samples (n < 5) make percentile intervals too narrow; prefer Welch there.
 *
 * @param resamples - bootstrap resamples. @default 2000
 * @throws {RangeError} when either sample is empty.
 */
export function bootstrapMeanDifference(
  candidate: readonly number[],
  incumbent: readonly number[],
  confidence: number,
  random: RandomSource,
  resamples = 2000,
): ComparisonResult {
  if (candidate.length === 0 || incumbent.length === 0)
    throw new RangeError('[loop] [statistics] bootstrapMeanDifference needs samples on both sides');
  const draw = (xs: readonly number[]) => {
    let s = 0;
    for (let i = 0; i < xs.length; i++) s += xs[Math.floor(random.next() * xs.length)]!;
    return s / xs.length;
  };
  const diffs = new Float64Array(resamples);
  let notBetter = 0;
  for (let i = 0; i < resamples; i++) {
    const d = draw(candidate) - draw(incumbent);
    diffs[i] = d;
    if (d <= 0) notBetter += 1;
  }
  diffs.sort();
  const alpha = (1 - confidence) / 2;
  const at = (q: number) => diffs[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))]!;
  return {
    difference: mean(candidate) - mean(incumbent),
    interval: [at(alpha), at(1 - alpha)],
    p: notBetter / resamples,
  };
}

/** The result of a Wilcoxon signed-rank test. */
export interface WilcoxonResult {
  /** Pairs with a non-zero difference (zeros are dropped). */
  readonly n: number;
  /** Sum of the ranks of the positive differences. */
  readonly wPlus: number;
  /** The normal-approximation z (with continuity and tie corrections); positive = candidate better. */
  readonly z: number;
  /** One-sided p-value of "the candidate is not better". */
  readonly pBetter: number;
  /** One-sided p-value of "the candidate is not worse". */
  readonly pWorse: number;
  /** Median of the per-pair differences (zeros included), in score units. */
  readonly medianDifference: number;
}

/**
 * The Wilcoxon signed-rank test on paired differences (candidate − incumbent per instance,
 * oriented so that positive is better), with the normal approximation, average ranks for ties,
 * the tie correction of the variance and a continuity correction. Zero differences are dropped.
 * With no non-zero difference both p-values are 1.
 */
export function wilcoxonSignedRank(differences: readonly number[]): WilcoxonResult {
  const medianDifference = differences.length > 0 ? median(differences) : 0;
  const nz = differences.filter((d) => d !== 0).map((d) => ({ d, abs: Math.abs(d) }));
  nz.sort((x, y) => x.abs - y.abs);
  const n = nz.length;
  if (n === 0) return { n: 0, wPlus: 0, z: 0, pBetter: 1, pWorse: 1, medianDifference };
  let wPlus = 0;
  let tieTerm = 0;
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && nz[j + 1]!.abs === nz[i]!.abs) j++;
    const rank = (i + j + 2) / 2; // ranks are 1-based: (i+1 + j+1) / 2
    const t = j - i + 1;
    tieTerm += t ** 3 - t;
    for (let k = i; k <= j; k++) if (nz[k]!.d > 0) wPlus += rank;
    i = j + 1;
  }
  const mu = (n * (n + 1)) / 4;
  const sigma = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieTerm / 48);
  if (sigma === 0) return { n, wPlus, z: 0, pBetter: 1, pWorse: 1, medianDifference };
  const z = (wPlus - mu) / sigma;
  const zBetter = (wPlus - mu - 0.5) / sigma;
  const zWorse = (wPlus - mu + 0.5) / sigma;
  return { n, wPlus, z, pBetter: 1 - normalCdf(zBetter), pWorse: normalCdf(zWorse), medianDifference };
}
