import { describe, expect, it } from 'vitest';
import type { Observation } from './observations.js';
import type { Dimension } from './space.js';
import { chooseConfig } from './tpe-step.js';
import type { TpeSettings } from './tpe-settings.js';

const dims: Dimension[] = ['x', 'y', 'z'].map((name) => ({
  kind: 'numeric',
  name,
  lo: 0,
  hi: 1,
  log: false,
  integer: false,
}));
const settings = (robustRadius: number, seed: number): TpeSettings => ({
  seed,
  startup: 6,
  candidates: 48,
  gamma: 0.15,
  local: 0.25,
  refine: 1,
  avoidCrashes: true,
  univariate: 0,
  useBaseline: true,
  refineCandidates: 1,
  minStep: 0.01,
  robustRadius,
  surrogate: 'parzen',
  gpStart: 0,
});

// A lucky row (loss 0) whose near-duplicates all score 0.1, a steady good row (0.02) whose
// near-duplicates score the same, and far-away bad rows.
const rows: Array<[number, number, number, number]> = [
  [0.2, 0.2, 0.2, 0],
  [0.202, 0.2, 0.2, 0.1],
  [0.2, 0.203, 0.2, 0.1],
  [0.2, 0.2, 0.198, 0.1],
  [0.8, 0.8, 0.8, 0.02],
  [0.802, 0.8, 0.8, 0.019],
  [0.8, 0.797, 0.8, 0.021],
  [0.8, 0.8, 0.803, 0.022],
  ...[0.05, 0.5, 0.95].flatMap((v): Array<[number, number, number, number]> => [
    [v, 0.95, 0.05, 1],
    [0.95, v, 0.5, 1],
  ]),
];
const observations: Observation[] = rows.map(([x, y, z, loss], i) => ({ iteration: i + 1, config: { x, y, z }, loss }));
const current = { x: 0.2, y: 0.2, z: 0.2 };
const dist = (c: Record<string, unknown>, p: number) =>
  Math.hypot((c.x as number) - p, (c.y as number) - p, (c.z as number) - p);

describe('TPE refinement centre under noise (robustRadius)', () => {
  it(
    'a refinement step centres on the good row whose near-duplicates average ' +
      'lowest, not on a lucky lowest row whose near-duplicates all scored worse ' +
      '(10 seeds; with robustRadius 0 it centres on the lowest row)',
    () => {
      for (let seed = 1; seed <= 10; seed++) {
        const robust = chooseConfig(dims, current, observations, settings(0.01, seed), rows.length + 1, 0);
        const plain = chooseConfig(dims, current, observations, settings(0, seed), rows.length + 1, 0);
        expect(dist(robust, 0.8)).toBeLessThan(dist(robust, 0.2));
        expect(dist(plain, 0.2)).toBeLessThan(dist(plain, 0.8));
      }
    },
  );
});
