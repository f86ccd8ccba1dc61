import { describe, expect, it } from 'vitest';
import { interleave, pairRatios, spread, formatRatio } from './bench.js';

describe('interleaved benches (issue 31)', () => {
  it('runs every variant once per cycle and rotates their order, so no variant always runs first', async () => {
    const order: string[] = [];
    const r = await interleave(
      { a: () => order.push('a'), b: () => order.push('b'), c: () => order.push('c') },
      { cycles: 3, warmup: 1 },
    );
    // warm-up cycle -1 starts at c (shift 2), then a, b, c
    expect(order.join('')).toBe('cababcbcacab');
    expect(r.samples.get('a')).toHaveLength(3);
    expect(r.cycles).toBe(3);
  });

  it(
    'a variant that returns { measuredMs } reports that time instead of its ' + 'wall time (its set-up excluded)',
    async () => {
      const r = await interleave(
        { a: () => ({ measuredMs: 5 }), b: async () => ({ measuredMs: 2 }) },
        { cycles: 2, warmup: 0 },
      );
      expect(r.samples.get('a')).toEqual([5, 5]);
      expect(pairRatios(r, 'a', 'b').median).toBe(2.5);
    },
  );

  it('takes a ratio pair by pair (same cycle), with min, median and max of the per-pair ratios', () => {
    const result = {
      samples: new Map([
        ['a', [2, 6, 30]],
        ['b', [1, 2, 10]],
      ]),
      cycles: 3,
      load: {} as never,
    };
    // per-pair 2, 3, 3; block medians would give 6/2 = 3
    expect(pairRatios(result, 'a', 'b')).toEqual({ min: 2, median: 3, max: 3, n: 3 });
    expect(formatRatio(pairRatios(result, 'a', 'b'))).toBe('3.00x (2.00-3.00x)');
  });

  it('the median of an even list is the mean of its two middle values', () => {
    expect(spread([4, 1, 3, 2])).toEqual({ min: 1, median: 2.5, max: 4, n: 4 });
  });
});
