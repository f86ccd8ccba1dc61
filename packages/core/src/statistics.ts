import type { RandomSource } from './types.js';

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

function median(xs: readonly number[]): number {
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
// Distribution functions

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; about 15 significant digits). */
function logGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1;
  let a = c[0]!;
  const t = y + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (y + i);
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction of the incomplete beta function (modified Lentz). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/**
 * The regularized incomplete beta function I_x(a, b), for 0 ≤ x ≤ 1 and a, b > 0 (continued
 * fraction, accurate to about 1e-12).
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a;
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

/** The CDF of Student's t distribution with `df` (> 0, may be fractional) degrees of freedom at `t`. */
export function studentTCdf(t: number, df: number): number {
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const tail = 0.5 * regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The quantile of Student's t distribution: the t with `studentTCdf(t, df) === p` (bisection, 1e-10). */
export function studentTQuantile(p: number, df: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  let lo = -1e3;
  let hi = 1e3;
  for (let i = 0; i < 200 && hi - lo > 1e-10; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The standard normal CDF Φ(z) (via the incomplete beta relation of erf; about 1e-12). */
export function normalCdf(z: number): number {
  if (!Number.isFinite(z)) return z > 0 ? 1 : 0;
  // erf(x) = I_{x²}(1/2, 1) · sign(x)... expressed through P(χ²₁ ≤ z²): Φ(z) = ½(1 + sign(z)·P).
  // P(χ²₁ ≤ z²) is the regularized lower incomplete gamma P(1/2, z²/2); use a series / fraction.
  const x = (z * z) / 2;
  const p = lowerGammaRegularizedHalf(x);
  return z >= 0 ? 0.5 * (1 + p) : 0.5 * (1 - p);
}

/** P(1/2, x): the regularized lower incomplete gamma at a = 1/2 (equals erf(√x)). */
function lowerGammaRegularizedHalf(x: number): number {
  if (x <= 0) return 0;
  const a = 0.5;
  const lnFront = -x + a * Math.log(x) - logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let term = sum;
    for (let n = 1; n < 500; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-16) break;
    }
    return sum * Math.exp(lnFront);
  }
  // Continued fraction for Q(a, x) (modified Lentz).
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 500; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return 1 - Math.exp(lnFront) * h;
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
export function welchTest(candidate: readonly number[], incumbent: readonly number[], confidence: number): ComparisonResult {
  const n1 = candidate.length;
  const n2 = incumbent.length;
  if (n1 < 2 || n2 < 1) throw new RangeError(`[loop] [statistics] welchTest needs at least 2 candidate samples and 1 incumbent sample (got ${n1} and ${n2})`);
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
  return { difference, interval: [difference - q * se, difference + q * se], p: 1 - studentTCdf(t, df), statistic: t, df };
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
export function bootstrapMeanDifference(candidate: readonly number[], incumbent: readonly number[], confidence: number, random: RandomSource, resamples = 2000): ComparisonResult {
  if (candidate.length === 0 || incumbent.length === 0) throw new RangeError('[loop] [statistics] bootstrapMeanDifference needs samples on both sides');
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
  return { difference: mean(candidate) - mean(incumbent), interval: [at(alpha), at(1 - alpha)], p: notBetter / resamples };
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
  for (let i = 0; i < n; ) {
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
