import { createSeededRandom } from '../../stats/random.js';
import type { RandomSource } from '../../contracts/types.js';
import type { Axis } from './parzen.js';

/** The tuning of one TPE step (see `TpeProposerOptions`). */
export interface TpeSettings {
  readonly seed: number;
  readonly startup: number;
  readonly candidates: number;
  readonly gamma: number;
  readonly local: number;
  readonly refine: number;
  readonly avoidCrashes: boolean;
  /**
   * Share of model proposals drawn from independent per-parameter densities (Optuna's default) instead of the joint
   * one.
   */
  readonly univariate: number;
  /** The baseline row joins the model. */
  readonly useBaseline: boolean;
  /** Refinement moves drawn per refinement step; the one with the highest l/g is proposed (1: the first one). */
  readonly refineCandidates: number;
  /** Smallest refinement step (normalised units). */
  readonly minStep: number;
  /**
   * Refinement centres on the good row whose rows within this distance have the lowest mean loss (0: the lowest row).
   */
  readonly robustRadius: number;
  /**
   * How model steps rank their candidates: `parzen` (l/g, TPE) or `gp` (expected improvement under a Gaussian process).
   */
  readonly surrogate: 'parzen' | 'gp';
  /** Evaluated rows before `gp` ranks candidates (TPE steps until then). */
  readonly gpStart: number;
}

/** A 32-bit seed for one proposal from (seed, iteration, attempt): a resumed run draws the same numbers. */
export function proposalSeed(seed: number, iteration: number, attempt: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const v of [iteration, attempt]) {
    h = Math.imul(h ^ (v >>> 0), 0x85ebca6b) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
    h = (h ^ (h >>> 16)) >>> 0;
  }
  return h;
}

/** Row `index` of the startup design: a Latin hypercube over the axes, the same for every run with this seed. */
export function latinHypercube(
  axes: readonly Axis[],
  settings: TpeSettings,
  index: number,
  random: RandomSource,
): number[] {
  const design = createSeededRandom(proposalSeed(settings.seed, -1, 0));
  const size = settings.startup;
  const row = index % size;
  return axes.map((axis) => {
    const perm = Array.from({ length: size }, (_, i) => i);
    for (let i = size - 1; i > 0; i--) {
      const j = Math.floor(design.next() * (i + 1));
      [perm[i], perm[j]] = [perm[j]!, perm[i]!];
    }
    const u = (perm[row]! + random.next()) / size;
    return axis.kind === 'categorical' ? Math.min(axis.k - 1, Math.floor(u * axis.k)) : u;
  });
}
