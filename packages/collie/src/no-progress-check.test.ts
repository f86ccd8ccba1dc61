import { describe, expect, it } from 'vitest';
import { bucketize, consecutiveZeroDeltas, checkNoProgress, jaccard } from './no-progress-check.js';

describe('seed 000 G7 (Stage 5.0, checked first)', () => {
  it('G7: token-set Jaccard is |A∩B|/|A∪B| over lower-cased word tokens, in [0, 1]', () => {
    expect(jaccard('Fix the parser', 'fix THE parser parser')).toBe(1);
    expect(jaccard('a b c', 'b c d')).toBeCloseTo(2 / 4);
    expect(jaccard('a', 'b')).toBe(0);
  });

  it('G7: iteration 1 (previous task text empty) has ratio 0', () => {
    expect(jaccard('fix parser', '')).toBe(0);
    expect(jaccard('', '')).toBe(0);
  });

  it('G7: the ratio is bucketised 1-5 in equal fifths', () => {
    expect([0, 0.19, 0.2, 0.39, 0.4, 0.6, 0.79, 0.8, 1].map(bucketize)).toEqual([1, 1, 2, 2, 3, 4, 4, 5, 5]);
  });

  it('G7: deadlock (escalate) only when bucket >= 4 AND two consecutive zero deltas', () => {
    const same = 'fix parser range off by one';
    expect(checkNoProgress(same, same, [0.5, 0, 0]).deadlock).toBe(true);
    expect(checkNoProgress(same, same, [0, 0.1, 0]).deadlock).toBe(false); // one zero delta
    expect(checkNoProgress(same, 'entirely different words here', [0, 0]).deadlock).toBe(false); // bucket 1
    expect(checkNoProgress('a b c d e', 'a b c d f', [0, 0])).toMatchObject({
      bucket: 4,
      consecutiveDelta0: 2,
      deadlock: true,
    });
  });

  it('G7: consecutiveDelta0 counts the trailing run of zero deltas; null breaks it', () => {
    expect(consecutiveZeroDeltas([0, 0, 1, 0, 0, 0])).toBe(3);
    expect(consecutiveZeroDeltas([0, null])).toBe(0);
    expect(consecutiveZeroDeltas([])).toBe(0);
  });
});
