import type { RandomSource } from '../../contracts/types.js';
import { sampleTruncated, type Axis, type Point } from './parzen.js';

/** When a refinement step changes a category, each numeric parameter also moves with this spread (probability 1/2). */
const COUPLED = 0.2;

/**
 * A point near `best`: each dimension moves with probability 2/d (at least one), by half the good kernel's bandwidth.
 */
export function localMove(
  axes: readonly Axis[],
  best: Point,
  bandwidths: readonly number[],
  random: RandomSource,
): number[] {
  const p = Math.min(1, 2 / axes.length);
  const forced = Math.floor(random.next() * axes.length);
  return axes.map((axis, j) => {
    const b = best[j];
    const move = j === forced || random.next() < p;
    if (axis.kind === 'categorical') {
      if (b === undefined || (move && random.next() < 0.5)) return Math.floor(random.next() * axis.k);
      return b;
    }
    if (b === undefined) return random.next();
    return move ? sampleTruncated(b, Math.max(axis.minBandwidth, bandwidths[j]! * 0.5), random) : b;
  });
}

/**
 * The incumbent with one parameter (or two, one time in three) moved: numeric by N(0, step) (at least one discrete
 * step), a category to another value.
 */
export function refineMove(
  axes: readonly Axis[],
  ranked: readonly Point[],
  step: number,
  random: RandomSource,
): number[] {
  const best = ranked[0]!;
  const u = axes.map(
    (axis, j) => best[j] ?? (axis.kind === 'categorical' ? Math.floor(random.next() * axis.k) : random.next()),
  );
  const count = Math.min(axes.length, random.next() < 1 / 3 ? 2 : 1);
  const order = axes
    .map((_, j) => j)
    .sort(() => random.next() - 0.5)
    .slice(0, count);
  for (const j of order) {
    const axis = axes[j]!;
    if (axis.kind === 'categorical') {
      u[j] = (u[j]! + 1 + Math.floor(random.next() * (axis.k - 1))) % axis.k;
      // Another category usually wants other numbers (adam wants another lr than sgd): move them too,
      // towards the best evaluated config that had this category when there is one.
      const donor = ranked.find((p) => p[j] === u[j]);
      axes.forEach((a, i) => {
        if (a.kind === 'categorical' || random.next() >= 0.5) return;
        const centre = donor?.[i] ?? u[i]!;
        u[i] = sampleTruncated(centre, Math.max(donor ? step : COUPLED, a.minBandwidth), random);
      });
    } else {
      const sigma = Math.max(step, axis.minBandwidth);
      u[j] = sampleTruncated(u[j]!, sigma, random);
    }
  }
  return u;
}

/** A point drawn uniformly: a random category per categorical axis, U(0, 1) per continuous one. */
export function uniformPoint(axes: readonly Axis[], random: RandomSource): number[] {
  return axes.map((a) => (a.kind === 'categorical' ? Math.floor(random.next() * a.k) : random.next()));
}
