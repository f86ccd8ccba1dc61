import { describe, expect, it } from 'vitest';
import { createSeededRandom } from './random.js';
import { normalCdf, regularizedIncompleteBeta, studentTCdf, studentTQuantile } from './distributions.js';
import { bootstrapMeanDifference, summarizeSamples, welchTest, wilcoxonSignedRank } from './statistics.js';

describe('statistics', () => {
  it('the regularized incomplete beta matches closed forms (I_0.5(2,3) = 11/16, I_x(1,1) = x)', () => {
    expect(regularizedIncompleteBeta(0.5, 2, 3)).toBeCloseTo(0.6875, 12);
    expect(regularizedIncompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(regularizedIncompleteBeta(0.9, 5, 0.5) + regularizedIncompleteBeta(0.1, 0.5, 5)).toBeCloseTo(1, 12);
  });

  it('the Student-t CDF matches table values (df 1, 5, 10, 30, large)', () => {
    expect(studentTCdf(1, 1)).toBeCloseTo(0.75, 10); // Cauchy: 1/2 + atan(1)/π
    expect(studentTCdf(12.7062047, 1)).toBeCloseTo(0.975, 7);
    expect(studentTCdf(-2.0150484, 5)).toBeCloseTo(0.05, 7);
    expect(studentTCdf(2, 10)).toBeCloseTo(0.9633059826, 9);
    expect(studentTCdf(2.0422725, 30)).toBeCloseTo(0.975, 7);
    expect(studentTCdf(1.959964, 1e7)).toBeCloseTo(0.975, 6);
    expect(studentTCdf(0, 3)).toBe(0.5);
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.2281389, 6);
  });

  it('the normal CDF matches table values', () => {
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 7);
    expect(normalCdf(-1)).toBeCloseTo(0.1586552539, 9);
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(3)).toBeCloseTo(0.998650102, 9);
  });

  it('summarizeSamples gives n, mean, sd (n − 1) and the scaled MAD that ignores an outlier', () => {
    const s = summarizeSamples([1, 2, 3, 4, 100]);
    expect(s.n).toBe(5);
    expect(s.mean).toBe(22);
    expect(s.sd).toBeCloseTo(43.6176, 3);
    expect(s.mad).toBeCloseTo(1.4826, 4); // median 3, deviations 2 1 0 1 97 → median 1
    expect(summarizeSamples([7])).toEqual({ n: 1, mean: 7, sd: 0, mad: 0 });
  });

  it("Welch's t-test matches R's t.test (t 2.828, df 4.154, one-sided p 0.0227, CI [0.0651, 3.935])", () => {
    const r = welchTest([1, 2, 3, 4], [0, 1, 0, 1], 0.95);
    expect(r.statistic).toBeCloseTo(2.828427, 5);
    expect(r.df).toBeCloseTo(4.153846, 5);
    expect(r.p).toBeCloseTo(0.0227, 4);
    expect(r.interval[0]).toBeCloseTo(0.0651, 4);
    expect(r.interval[1]).toBeCloseTo(3.9349, 4);
  });

  it('Wilcoxon signed-rank: normal approximation with ties and continuity (n 10, W+ 49)', () => {
    const r = wilcoxonSignedRank([1, 2, 3, 4, 5, 6, 7, 8, -1.5, -2.5, 0]);
    expect(r.n).toBe(10); // the zero is dropped
    expect(r.wPlus).toBe(49);
    expect(r.pBetter).toBeCloseTo(1 - normalCdf((49 - 27.5 - 0.5) / Math.sqrt(96.25)), 10);
    expect(wilcoxonSignedRank([0, 0])).toMatchObject({ n: 0, pBetter: 1, pWorse: 1 });
  });

  it('the bootstrap interval is deterministic for a seed (seed 3) and covers the true difference', () => {
    const a = [5.1, 5.3, 4.9, 5.2, 5.0, 5.4];
    const b = [4.0, 4.2, 3.9, 4.1, 4.3, 4.0];
    const r1 = bootstrapMeanDifference(a, b, 0.95, createSeededRandom(3));
    const r2 = bootstrapMeanDifference(a, b, 0.95, createSeededRandom(3));
    expect(r1).toEqual(r2);
    expect(r1.interval[0]).toBeGreaterThan(0.8);
    expect(r1.interval[1]).toBeLessThan(1.4);
    expect(r1.p).toBe(0);
  });
});
