import { describe, expect, it } from 'vitest';
import { nextWorkerShare } from './worktree-walk.js';

describe('the walk balances its two threads (issue 13)', () => {
  it('equal times keep the share; a slower worker gets less, a slower walk thread gives the worker more', () => {
    expect(nextWorkerShare(0.7, 100, 100)).toBeCloseTo(0.7, 10);
    expect(nextWorkerShare(0.7, 100, 200)).toBeLessThan(0.7);
    expect(nextWorkerShare(0.5, 300, 100)).toBeGreaterThan(0.5);
  });

  it('converges to the share at which proportional costs take equally long, and stays within [0.2, 0.9]', () => {
    // Walk thread 6 ms per unit share, worker 4 ms: balanced at s = 6 / (6 + 4) = 0.6.
    let share = 0.9;
    for (let i = 0; i < 30; i += 1) share = nextWorkerShare(share, 6 * (1 - share), 4 * share);
    expect(share).toBeCloseTo(0.6, 3);
    expect(nextWorkerShare(0.9, 1000, 1)).toBe(0.9);
    expect(nextWorkerShare(0.2, 1, 1000)).toBe(0.2);
    expect(nextWorkerShare(0.7, 0, 50)).toBe(0.7);
  });
});
