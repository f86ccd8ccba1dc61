/**
 * The second held-back objective, written for issue 17's final check after the first one had been
 * looked at while tuning: nothing about the proposer was chosen on it (it was run only for the final
 * table). A boosted-trees-like mixed space; same definition in heldback2.py.
 */
import type { Objective } from './objectives.js';

const BOOSTER: Record<string, number> = { gbtree: 0, dart: 0.015, linear: 0.06 };
const PENALTY: Record<string, number> = { l2: 0, elastic: 0.005, l1: 0.025 };
const ALPHA: Record<string, number> = { l2: 1e-3, elastic: 3e-4, l1: 1e-4 };

/**
 * 7 parameters: log-float alpha, float ratio, log-int trees, int leaves, an ordered subsample list,
 * two categoricals. The best alpha depends on the penalty, the best trees and leaves on the booster.
 * Optimum 0 at gbtree, l2, alpha 1e-3, ratio 0.7, trees 200, leaves 24, subsample 0.8.
 */
export const mixedHeldBack2: Objective = {
  name: 'mixed-heldback2',
  space: {
    alpha: { min: 1e-5, max: 1, scale: 'log' },
    ratio: { min: 0, max: 1 },
    trees: { min: 10, max: 500, scale: 'log', integer: true },
    leaves: { min: 2, max: 64, integer: true },
    subsample: { values: [0.5, 0.6, 0.7, 0.8, 0.9, 1] },
    booster: { values: ['linear', 'dart', 'gbtree'] },
    penalty: { values: ['l1', 'elastic', 'l2'] },
  },
  start: { alpha: 0.01, ratio: 0.5, trees: 50, leaves: 8, subsample: 1, booster: 'linear', penalty: 'l1' },
  optimum: 0,
  f: (c) => {
    const booster = c.booster as string;
    const penalty = c.penalty as string;
    const treesStar = booster === 'gbtree' ? 200 : 80;
    const leavesStar = booster === 'gbtree' ? 24 : 12;
    return (
      BOOSTER[booster]! +
      PENALTY[penalty]! +
      0.04 * (Math.log10(c.alpha as number) - Math.log10(ALPHA[penalty]!)) ** 2 +
      0.5 * ((c.ratio as number) - 0.7) ** 2 +
      0.06 * (Math.log2(c.trees as number) - Math.log2(treesStar)) ** 2 +
      0.02 * (((c.leaves as number) - leavesStar) / 10) ** 2 +
      0.8 * ((c.subsample as number) - 0.8) ** 2
    );
  },
};
