import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '@loop/core';
import { createProgress, formatDuration } from '../src/progress.js';

const row = (iteration: number, score: number | null) => ({
  iteration,
  score,
  status: 'kept',
  description: '',
  candidateId: 'abc1234',
});

describe('demo live line', () => {
  it(
    'shows iteration N of M, elapsed, time left from the mean run time, and ' + 'the best val_bpc so far (fake clock)',
    () => {
      let t = 0;
      const p = createProgress({ iterations: 4, now: () => t });
      t = 10_000;
      expect(p.update({ type: 'baseline', record: row(0, 3.2) } as unknown as LoopEvent)).toBe(
        'progress  iteration 0 of 4 | elapsed 10s | ~40s left | best val_bpc 3.200000',
      );
      t = 20_000;
      expect(p.update({ type: 'kept', record: row(1, 3.1) } as unknown as LoopEvent)).toBe(
        'progress  iteration 1 of 4 | elapsed 20s | ~30s left | best val_bpc 3.100000',
      );
      t = 30_000;
      expect(p.update({ type: 'reverted', record: row(2, 3.0) } as unknown as LoopEvent)).toBe(
        'progress  iteration 2 of 4 | elapsed 30s | ~20s left | best val_bpc 3.100000',
      );
      expect(p.update({ type: 'advice' } as unknown as LoopEvent)).toBeUndefined();
    },
  );

  it('with K candidates at once, time left counts batches: the rows of one batch show one estimate', () => {
    let t = 0;
    const p = createProgress({ iterations: 6, parallel: 2, now: () => t });
    t = 30_000;
    expect(p.update({ type: 'baseline', record: row(0, 3.2) } as unknown as LoopEvent)).toContain('| ~1m30s left |');
    t = 60_000; // the first batch (iterations 1 and 2) finished: 2 batches in 60 s, 2 to go
    expect(p.update({ type: 'reverted', record: row(1, 3.3) } as unknown as LoopEvent)).toContain(
      'iteration 1 of 6 | elapsed 1m00s | ~1m00s left',
    );
    expect(p.update({ type: 'kept', record: row(2, 3.1) } as unknown as LoopEvent)).toContain(
      'iteration 2 of 6 | elapsed 1m00s | ~1m00s left',
    );
  });

  it('on the async schedule, time left is the mean time per row since the baseline times the rows to go', () => {
    let t = 0;
    const p = createProgress({ iterations: 6, parallel: 2, schedule: 'async', now: () => t });
    t = 30_000;
    // No row yet: the baseline's time per batch of K, as on the batch schedule (3 batches of 2 to go).
    expect(p.update({ type: 'baseline', record: row(0, 3.2) } as unknown as LoopEvent)).toContain('| ~1m30s left |');
    t = 40_000; // a pruned training ends early: 1 row in 10 s, 5 to go
    expect(p.update({ type: 'reverted', record: row(1, 3.6) } as unknown as LoopEvent)).toContain(
      'iteration 1 of 6 | elapsed 40s | ~50s left',
    );
    t = 90_000; // 3 rows in 60 s since the baseline: 20 s a row, 3 to go
    p.update({ type: 'kept', record: row(2, 3.1) } as unknown as LoopEvent);
    expect(p.update({ type: 'reverted', record: row(3, 3.3) } as unknown as LoopEvent)).toContain(
      'iteration 3 of 6 | elapsed 1m30s | ~1m00s left',
    );
  });

  it('a resumed run counts from its iteration and its best; unlimited runs show no time left', () => {
    let t = 0;
    const p = createProgress({ iterations: 0, now: () => t });
    p.update({ type: 'resumed', iteration: 5, best: 2.5, bestId: 'x' } as LoopEvent);
    t = 65_000;
    expect(p.update({ type: 'crash', record: row(6, null) } as unknown as LoopEvent)).toBe(
      'progress  iteration 6 | elapsed 1m05s | best val_bpc 2.500000',
    );
  });

  it('formats durations as s, m and h', () => {
    expect([formatDuration(4_400), formatDuration(65_000), formatDuration(3_720_000)]).toEqual([
      '4s',
      '1m05s',
      '1h02m',
    ]);
  });
});
