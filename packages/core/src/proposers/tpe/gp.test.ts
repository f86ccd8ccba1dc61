import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../stats/random.js';
import { hyperparameterPrefix, MAX_GP_ROWS } from './gp-step.js';
import { expectedImprovement, fitGaussianProcess, fitHyperparameters } from './gp.js';
import { gaussian, type Axis } from './parzen.js';

const continuous: Axis = { kind: 'continuous', minBandwidth: 0.002 };

describe('Gaussian-process surrogate', () => {
  it(
    'without noise it interpolates: the posterior mean at a row is its loss ' +
      'and the sd there is near 0, while between rows the sd is larger',
    () => {
      const xs = [0, 0.1, 0.2, 0.45, 0.55, 0.7, 0.8, 1];
      const f = (x: number) => Math.sin(6 * x);
      const gp = fitGaussianProcess(
        [continuous],
        xs.map((x) => [x]),
        xs.map(f),
      );
      expect(gp.noiseShare).toBeLessThanOrEqual(1e-3);
      for (const x of xs) {
        const p = gp.predict([x]);
        expect(Math.abs(p.mean - f(x))).toBeLessThan(0.02);
        expect(p.sd).toBeLessThan(0.05);
      }
      expect(gp.predict([0.32]).sd).toBeGreaterThan(5 * gp.predict([0.2]).sd);
      expect(gp.predict([0.32]).sd).toBeGreaterThan(0.01);
    },
  );

  it(
    'fits a larger noise share to noisy losses than to the same smooth ' +
      'function without noise, and its mean then smooths the noise (closer to ' +
      'the truth than the rows)',
    () => {
      const random = createSeededRandom(4);
      const xs = Array.from({ length: 30 }, (_, i) => i / 29);
      const f = (x: number) => (x - 0.6) ** 2;
      const clean = fitHyperparameters(
        [continuous],
        xs.map((x) => [x]),
        xs.map(f),
      );
      const noisy = xs.map((x) => f(x) + 0.05 * gaussian(random));
      const fitted = fitHyperparameters(
        [continuous],
        xs.map((x) => [x]),
        noisy,
      );
      expect(fitted.noiseShare).toBeGreaterThan(clean.noiseShare);
      const gp = fitGaussianProcess(
        [continuous],
        xs.map((x) => [x]),
        noisy,
        fitted,
      );
      const rowError = xs.reduce((s, x, i) => s + (noisy[i]! - f(x)) ** 2, 0);
      const meanError = xs.reduce((s, x) => s + (gp.predict([x]).mean - f(x)) ** 2, 0);
      expect(meanError).toBeLessThan(rowError / 2);
    },
  );

  it(
    'automatic relevance: a dimension the loss ignores gets a longer ' +
      'lengthscale than the one it depends on; a category the loss depends on a ' +
      'shorter one than an ignored category',
    () => {
      const random = createSeededRandom(9);
      const axes: Axis[] = [continuous, continuous, { kind: 'categorical', k: 3 }, { kind: 'categorical', k: 3 }];
      const points = Array.from({ length: 25 }, () => [
        random.next(),
        random.next(),
        Math.floor(random.next() * 3),
        Math.floor(random.next() * 3),
      ]);
      const losses = points.map((p) => Math.sin(5 * p[0]!) + 0.5 * p[2]!);
      const { lengthscales } = fitHyperparameters(axes, points, losses);
      expect(lengthscales[1]!).toBeGreaterThan(lengthscales[0]!);
      expect(lengthscales[3]!).toBeGreaterThan(lengthscales[2]!);
    },
  );

  it(
    'is deterministic: the same rows fit the same hyperparameters and ' +
      'predictions (a resumed run ranks as the uninterrupted one)',
    () => {
      const points = [[0.1], [0.5], [0.9], [0.3]];
      const losses = [1, 0.2, 0.8, 0.5];
      const a = fitGaussianProcess([continuous], points, losses);
      const b = fitGaussianProcess([continuous], points, losses);
      expect(a.lengthscales).toEqual(b.lengthscales);
      expect(a.noiseShare).toBe(b.noiseShare);
      expect(a.predict([0.42])).toEqual(b.predict([0.42]));
    },
  );

  it(
    'an inactive parameter (undefined) counts as one unit of difference from ' +
      'an active value and none from another inactive one',
    () => {
      const axes: Axis[] = [continuous, continuous];
      const points = [
        [0.2, undefined],
        [0.8, undefined],
        [0.2, 0.5],
        [0.8, 0.5],
      ];
      const gp = fitGaussianProcess(axes, points, [0, 1, 5, 6]);
      expect(Math.abs(gp.predict([0.2, undefined]).mean - 0)).toBeLessThan(0.1);
      expect(Math.abs(gp.predict([0.2, 0.5]).mean - 5)).toBeLessThan(0.1);
    },
  );

  it(
    'expected improvement: max(0, gain) with no uncertainty, sd/sqrt(2π) at ' + 'the target, and it grows with the sd',
    () => {
      expect(expectedImprovement(1, 0, 1.5)).toBe(0.5);
      expect(expectedImprovement(2, 0, 1.5)).toBe(0);
      expect(expectedImprovement(1, 0.3, 1)).toBeCloseTo(0.3 / Math.sqrt(2 * Math.PI), 12);
      expect(expectedImprovement(1.2, 0.5, 1)).toBeGreaterThan(expectedImprovement(1.2, 0.1, 1));
    },
  );

  it(
    'hyperparameters are refitted on a growing prefix of the rows: every row ' +
      'up to 12, then about every x1.25 (12, 15, 18, 22, 27, ...)',
    () => {
      expect([3, 12, 13, 14, 15, 17, 18, 22, 27, 100].map(hyperparameterPrefix)).toEqual([
        3, 12, 12, 12, 15, 15, 18, 22, 27, 97,
      ]);
      const distinct = new Set(Array.from({ length: 98 }, (_, i) => hyperparameterPrefix(i + 3)));
      expect(distinct.size).toBeLessThanOrEqual(25);
      expect(hyperparameterPrefix(5000)).toBeLessThanOrEqual(MAX_GP_ROWS);
    },
  );
});
