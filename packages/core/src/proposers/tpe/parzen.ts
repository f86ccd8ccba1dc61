import { normalCdf } from '../../stats/distributions.js';
import type { RandomSource } from '../../contracts/types.js';

/**
 * A point in the model's coordinates: per dimension a number in [0, 1] (numeric, ordinal), a
 * category index (categorical), or `undefined` (the parameter is inactive or unknown for this row).
 */
export type Point = ReadonlyArray<number | undefined>;

/** The model's view of one dimension: continuous on [0, 1], or `k` categories. */
export type Axis =
  { readonly kind: 'continuous'; readonly minBandwidth: number } | { readonly kind: 'categorical'; readonly k: number };

/**
 * A multivariate Parzen estimator (Bergstra et al. 2011, "Algorithms for Hyper-Parameter
 * Optimization"; the joint kernel of Falkner et al. 2018, BOHB): a mixture of one kernel per point
 * (a product over dimensions of a Gaussian truncated to [0, 1], with a per-dimension bandwidth, and an
 * Aitchison-Aitken kernel on categories) plus one uniform prior component. The joint kernel keeps the
 * correlation between parameters (adam with a higher lr) that a per-parameter estimator loses.
 */
export interface ParzenEstimator {
  /** Log density of `x` (dimensions where `x` is undefined are skipped). */
  readonly logDensity: (x: Point) => number;
  /** Draws one point: a component by weight, then each dimension from its kernel. */
  readonly sample: (random: RandomSource) => number[];
  /** The bandwidth of each continuous dimension (0 for categorical ones). */
  readonly bandwidths: readonly number[];
}

const SQRT2PI = Math.sqrt(2 * Math.PI);

function truncatedNormalPdf(x: number, mu: number, sigma: number): number {
  const z = normalCdf((1 - mu) / sigma) - normalCdf((0 - mu) / sigma);
  const d = Math.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * SQRT2PI);
  return d / Math.max(z, 1e-12);
}

/** A standard normal draw (Box-Muller). */
export function gaussian(random: RandomSource): number {
  const u = 1 - random.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.next());
}

/** A draw from N(mu, sigma) truncated to [0, 1] (rejection, then the clamped mean). */
export function sampleTruncated(mu: number, sigma: number, random: RandomSource): number {
  for (let i = 0; i < 32; i++) {
    const x = mu + sigma * gaussian(random);
    if (x >= 0 && x <= 1) return x;
  }
  return Math.min(1, Math.max(0, mu));
}

/**
 * Fits an estimator to `points`.
 *
 * Bandwidth per continuous dimension: Scott's rule over the points' spread,
 * `1.06 * std * n^(-1/(d+4))`, at least `1 / (1 + n)` and the axis' `minBandwidth` (one step of a
 * discrete axis), at most 0.5: a tight cluster gets a tighter kernel as points accumulate, but a few
 * points never collapse it (the floor plays the role of Optuna's "magic clip").
 * Categorical kernel: the point's category with probability `1 - lambda`, each other one with
 * `lambda / (k - 1)`, `lambda = (k - 1) / k / (1 + sqrt(n))`.
 *
 * @param axes - one per dimension
 * @param points - the points (may be empty: then only the prior)
 * @param priorWeight - weight of the uniform prior relative to one point's kernel @default 1
 */
export function fitParzen(axes: readonly Axis[], points: readonly Point[], priorWeight = 1): ParzenEstimator {
  const n = points.length;
  const d = axes.length;
  const bandwidth = axes.map((axis, j) => {
    if (axis.kind === 'categorical') return 0;
    const xs = points.map((p) => p[j]).filter((v): v is number => v !== undefined);
    if (xs.length < 2) return 0.5;
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const std = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
    const floor = Math.max(axis.minBandwidth, 1 / (1 + xs.length));
    return Math.min(0.5, Math.max(floor, 1.06 * std * xs.length ** (-1 / (d + 4))));
  });
  const lambda = axes.map((axis) => (axis.kind === 'categorical' ? (axis.k - 1) / axis.k / (1 + Math.sqrt(n)) : 0));
  const total = n + priorWeight;

  const kernelLog = (x: Point, p: Point | undefined): number => {
    let s = 0;
    for (let j = 0; j < d; j++) {
      const xj = x[j];
      if (xj === undefined) continue;
      const axis = axes[j]!;
      const pj = p?.[j];
      if (axis.kind === 'categorical') {
        if (pj === undefined) s -= Math.log(axis.k);
        else s += Math.log(xj === pj ? 1 - lambda[j]! : lambda[j]! / (axis.k - 1));
      } else if (pj !== undefined) s += Math.log(Math.max(truncatedNormalPdf(xj, pj, bandwidth[j]!), 1e-300));
    }
    return s;
  };

  return {
    bandwidths: bandwidth,
    logDensity: (x) => {
      const logs = [Math.log(priorWeight) + kernelLog(x, undefined), ...points.map((p) => kernelLog(x, p))];
      const max = Math.max(...logs);
      return max + Math.log(logs.reduce((a, l) => a + Math.exp(l - max), 0)) - Math.log(total);
    },
    sample: (random) => {
      const pick = random.next() * total;
      const p = pick < priorWeight ? undefined : points[Math.min(n - 1, Math.floor(pick - priorWeight))];
      return axes.map((axis, j) => {
        const pj = p?.[j];
        if (axis.kind === 'categorical') {
          if (pj === undefined || random.next() < (lambda[j]! * axis.k) / (axis.k - 1))
            return Math.floor(random.next() * axis.k);
          return pj;
        }
        return pj === undefined ? random.next() : sampleTruncated(pj, bandwidth[j]!, random);
      });
    },
  };
}
