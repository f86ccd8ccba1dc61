import { normalCdf } from '../../stats/distributions.js';
import type { Axis, Point } from './parzen.js';

/**
 * A Gaussian-process surrogate of the loss (Rasmussen & Williams 2006; the Matérn 5/2 ARD kernel of
 * Snoek et al. 2012, "Practical Bayesian Optimization of Machine Learning Algorithms"), used to rank
 * the TPE step's candidates by expected improvement when `surrogate: 'gp'`.
 *
 * Inputs are the model's points (see {@link Point}): a continuous coordinate in [0, 1] differs by
 * its difference, a category by 0 or 1 (an overlap kernel), an inactive parameter by 0 from another
 * inactive one and 1 from an active one. One lengthscale per dimension and the noise share are
 * chosen by maximising the marginal likelihood (the amplitude profiled out) over a fixed grid,
 * coordinate by coordinate: deterministic, so a resumed run fits the same model.
 */
export interface GaussianProcess {
  /** Posterior of the latent (noise-free) loss at `x`, in the loss' own units. */
  readonly predict: (x: Point) => { readonly mean: number; readonly sd: number };
  /** The chosen lengthscale per dimension (normalised units; categories: per unit of mismatch). */
  readonly lengthscales: readonly number[];
  /** The chosen noise variance as a share of the signal variance. */
  readonly noiseShare: number;
}

const CONTINUOUS_SCALES = [0.05, 0.1, 0.2, 0.35, 0.6, 1, 2, 4];
const CATEGORICAL_SCALES = [0.35, 0.7, 1.4, 3, 6];
const NOISE_SHARES = [1e-6, 1e-4, 1e-3, 0.01, 0.03, 0.1, 0.3, 1];
const JITTER = 1e-8;
const SWEEPS = 2;

function difference(axis: Axis, x: number | undefined, y: number | undefined): number {
  if (x === undefined || y === undefined) return x === y ? 0 : 1;
  if (axis.kind === 'categorical') return x === y ? 0 : 1;
  return x - y;
}

function matern52(r2: number): number {
  const r = Math.sqrt(5 * r2);
  return (1 + r + (r * r) / 3) * Math.exp(-r);
}

/**
 * Cholesky factor of the n×n matrix `a` (row-major, lower triangle used), in place; false when not positive definite.
 */
function cholesky(a: Float64Array, n: number): boolean {
  for (let j = 0; j < n; j++) {
    let s = a[j * n + j]!;
    for (let k = 0; k < j; k++) s -= a[j * n + k]! ** 2;
    if (!(s > 0)) return false;
    const d = Math.sqrt(s);
    a[j * n + j] = d;
    for (let i = j + 1; i < n; i++) {
      let t = a[i * n + j]!;
      for (let k = 0; k < j; k++) t -= a[i * n + k]! * a[j * n + k]!;
      a[i * n + j] = t / d;
    }
  }
  return true;
}

/** Solves L z = b (forward substitution) for the lower-triangular factor `l`. */
function forward(l: Float64Array, n: number, b: ArrayLike<number>): Float64Array {
  const z = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= l[i * n + k]! * z[k]!;
    z[i] = s / l[i * n + i]!;
  }
  return z;
}

/** Solves Lᵀ x = z (back substitution). */
function backward(l: Float64Array, n: number, z: Float64Array): Float64Array {
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = z[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * x[k]!;
    x[i] = s / l[i * n + i]!;
  }
  return x;
}

interface Factor {
  readonly l: Float64Array;
  readonly alpha: Float64Array;
  /** The profiled amplitude (signal variance of the standardised losses). */
  readonly amplitude: number;
  readonly logLikelihood: number;
}

/** A GP's hyperparameters: a lengthscale per dimension and the noise variance as a share of the signal's. */
export interface GpHyperparameters {
  readonly lengthscales: readonly number[];
  readonly noiseShare: number;
}

interface Prepared {
  readonly n: number;
  readonly mean: number;
  readonly spread: number;
  readonly y: readonly number[];
  /** Squared differences per dimension (lower triangle, row-major). */
  readonly squared: readonly Float64Array[];
}

function prepare(axes: readonly Axis[], points: readonly Point[], losses: readonly number[]): Prepared {
  const n = points.length;
  const mean = losses.reduce((a, b) => a + b, 0) / n;
  const spread = Math.sqrt(losses.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, n - 1)) || 1;
  const squared = axes.map((axis, j) => {
    const m = new Float64Array(n * n);
    for (let a = 0; a < n; a++)
      for (let b = 0; b < a; b++) m[a * n + b] = difference(axis, points[a]![j], points[b]![j]) ** 2;
    return m;
  });
  return { n, mean, spread, y: losses.map((v) => (v - mean) / spread), squared };
}

function factor(p: Prepared, scales: readonly number[], noise: number): Factor | undefined {
  const { n, y, squared } = p;
  const c = new Float64Array(n * n);
  const inv = scales.map((s) => 1 / (s * s));
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < a; b++) {
      let r2 = 0;
      for (let j = 0; j < inv.length; j++) r2 += squared[j]![a * n + b]! * inv[j]!;
      c[a * n + b] = matern52(r2);
    }
    c[a * n + a] = 1 + noise + JITTER;
  }
  if (!cholesky(c, n)) return undefined;
  const alpha = backward(c, n, forward(c, n, y));
  let quad = 0;
  for (let i = 0; i < n; i++) quad += y[i]! * alpha[i]!;
  const amplitude = Math.max(quad / n, 1e-12);
  let logDet = 0;
  for (let i = 0; i < n; i++) logDet += Math.log(c[i * n + i]!);
  return { l: c, alpha, amplitude, logLikelihood: -0.5 * n * Math.log(amplitude) - logDet };
}

/**
 * The hyperparameters of highest marginal likelihood (amplitude profiled out) for `points` and
 * `losses` (same length, at least 2), searched over a fixed grid one coordinate at a time, twice
 * over; the first best setting met is kept, so the result depends only on the points and losses.
 */
export function fitHyperparameters(
  axes: readonly Axis[],
  points: readonly Point[],
  losses: readonly number[],
): GpHyperparameters {
  return searchHyperparameters(axes, prepare(axes, points, losses));
}

function searchHyperparameters(axes: readonly Axis[], p: Prepared): GpHyperparameters {
  const d = axes.length;
  const scales: number[] = axes.map((axis) => (axis.kind === 'categorical' ? 1.4 : 0.35));
  let noise = 0.01;
  let best = factor(p, scales, noise);
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    for (let j = 0; j <= d; j++) {
      const grid = j === d ? NOISE_SHARES : axes[j]!.kind === 'categorical' ? CATEGORICAL_SCALES : CONTINUOUS_SCALES;
      for (const value of grid) {
        const trial = j === d ? scales : scales.map((s, i) => (i === j ? value : s));
        const f = factor(p, trial, j === d ? value : noise);
        if (f && (!best || f.logLikelihood > best.logLikelihood + 1e-9)) {
          best = f;
          if (j === d) noise = value;
          else scales[j] = value;
        }
      }
    }
  }
  return { lengthscales: scales, noiseShare: best ? noise : 1 };
}

/**
 * Fits a GP to `points` with `losses` (same length, at least 2): with `hyper` when given, else
 * with {@link fitHyperparameters}' choice.
 */
export function fitGaussianProcess(
  axes: readonly Axis[],
  points: readonly Point[],
  losses: readonly number[],
  hyper?: GpHyperparameters,
): GaussianProcess {
  const p = prepare(axes, points, losses);
  const { lengthscales, noiseShare } = hyper ?? searchHyperparameters(axes, p);
  const { n, mean, spread } = p;
  const fit = factor(p, lengthscales, noiseShare) ?? factor(p, lengthscales, Math.max(1, noiseShare))!;
  const inv = lengthscales.map((s) => 1 / (s * s));
  const d = axes.length;
  return {
    lengthscales,
    noiseShare,
    predict: (x) => {
      const k = new Float64Array(n);
      for (let a = 0; a < n; a++) {
        let r2 = 0;
        for (let j = 0; j < d; j++) r2 += difference(axes[j]!, x[j], points[a]![j]) ** 2 * inv[j]!;
        k[a] = matern52(r2);
      }
      let mu = 0;
      for (let a = 0; a < n; a++) mu += k[a]! * fit.alpha[a]!;
      const v = forward(fit.l, n, k);
      let vv = 0;
      for (let a = 0; a < n; a++) vv += v[a]! ** 2;
      const variance = Math.max(0, fit.amplitude * (1 - vv));
      return { mean: mean + spread * mu, sd: spread * Math.sqrt(variance) };
    },
  };
}

/**
 * Expected improvement of a normal posterior (mean, sd) below `target` (Jones et al. 1998):
 * `(target - mean) Φ(z) + sd φ(z)`, `z = (target - mean) / sd`; `max(0, target - mean)` when sd is 0.
 */
export function expectedImprovement(mean: number, sd: number, target: number): number {
  const gain = target - mean;
  if (!(sd > 1e-12)) return Math.max(0, gain);
  const z = gain / sd;
  return gain * normalCdf(z) + (sd * Math.exp(-0.5 * z * z)) / Math.sqrt(2 * Math.PI);
}
