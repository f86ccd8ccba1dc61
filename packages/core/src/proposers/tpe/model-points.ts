import type { Observation } from './observations.js';
import type { Axis, Point } from './parzen.js';
import { decode, encode, isActive, type Dimension, type ParameterConfig } from './space.js';

/** The model axis of a dimension (its kernel's kind and smallest bandwidth). */
export function axisOf(d: Dimension): Axis {
  if (d.kind === 'categorical') return { kind: 'categorical', k: d.values.length };
  // A discrete axis' kernel is at least one step wide, so a neighbouring value stays reachable.
  if (d.kind === 'ordinal') return { kind: 'continuous', minBandwidth: 1 / Math.max(1, d.values.length - 1) };
  if (d.kind === 'numeric' && d.integer) {
    const span = d.log ? Math.log(d.hi) - Math.log(d.lo) : d.hi - d.lo;
    const step = d.log ? Math.log((d.lo + 1) / d.lo) : 1;
    return { kind: 'continuous', minBandwidth: Math.min(0.5, step / span) };
  }
  return { kind: 'continuous', minBandwidth: 0.002 };
}

/** The config a model point stands for: `base` with every searched value set, inactive ones left as in `base`. */
export function configOf(
  dims: readonly Dimension[],
  searched: readonly Dimension[],
  u: readonly number[],
  base: ParameterConfig,
): Record<string, unknown> {
  const next: Record<string, unknown> = { ...base };
  for (const d of dims) if (d.kind === 'fixed') next[d.name] = d.value;
  searched.forEach((d, j) => {
    next[d.name] = decode(d, u[j]!);
  });
  for (const d of dims) {
    if (isActive(d, next)) continue;
    if (base[d.name] === undefined) delete next[d.name];
    else next[d.name] = base[d.name];
  }
  return next;
}

/** The model point of a config: each searched dimension encoded, undefined where it is inactive. */
export function pointOf(searched: readonly Dimension[], config: ParameterConfig): Point {
  return searched.map((d) => (isActive(d, config) ? encode(d, config[d.name]) : undefined));
}

/** Root mean square distance over the axes both points have (categorical: 0 or 1 per axis). */
export function distance(axes: readonly Axis[], a: Point, b: Point): number {
  let s = 0;
  let n = 0;
  axes.forEach((axis, j) => {
    const x = a[j];
    const y = b[j];
    if (x === undefined || y === undefined) return;
    n++;
    s += axis.kind === 'categorical' ? (x === y ? 0 : 1) : (x - y) ** 2;
  });
  return n === 0 ? 0 : Math.sqrt(s / n);
}

/**
 * The refinement centre: of the first `n` ranked points, the one whose neighbourhood (the rows
 * within `radius` in `distance`, itself included) has the lowest mean loss; 0 (the lowest row) when
 * `radius` is 0. Rows that close differ mostly by noise, so a lucky row's near-duplicates pull its
 * mean back up and a steadily good row takes over as the centre.
 */
export function robustCentre(
  axes: readonly Axis[],
  points: readonly Point[],
  rows: readonly Observation[],
  n: number,
  radius: number,
): number {
  if (radius <= 0) return 0;
  let best = 0;
  let bestMean = Infinity;
  for (let i = 0; i < Math.min(n, points.length); i++) {
    let sum = 0;
    let count = 0;
    points.forEach((q, k) => {
      if (k !== i && distance(axes, points[i]!, q) > radius) return;
      sum += rows[k]!.loss!;
      count++;
    });
    if (sum / count < bestMean) {
      bestMean = sum / count;
      best = i;
    }
  }
  return best;
}
