import { describe, expect, it } from 'vitest';
import { minDelta, strictImprovement } from './keep-policy.js';

describe('keep policies', () => {
  it('strict improvement keeps a lower score when minimizing', async () => {
    expect((await strictImprovement().decide({ candidate: 0.99, incumbent: 1, direction: 'minimize' })).keep).toBe(
      true,
    );
  });
  it('strict improvement keeps a higher score when maximizing', async () => {
    expect((await strictImprovement().decide({ candidate: 1.01, incumbent: 1, direction: 'maximize' })).keep).toBe(
      true,
    );
  });
  it('equal scores revert (seed 001: 不变 → reset)', async () => {
    const d = await strictImprovement().decide({ candidate: 1, incumbent: 1, direction: 'minimize' });
    expect(d).toEqual({ keep: false, reason: 'equal score (equal reverts)' });
  });
  it('a worse score reverts with the size of the regression in the reason', async () => {
    const d = await strictImprovement().decide({ candidate: 1.5, incumbent: 1, direction: 'minimize' });
    expect(d).toEqual({ keep: false, reason: 'worse by 0.5' });
  });
  it('min-delta reverts a gain not above the delta', async () => {
    expect((await minDelta(0.1).decide({ candidate: 0.95, incumbent: 1, direction: 'minimize' })).keep).toBe(false);
    expect((await minDelta(0.1).decide({ candidate: 0.85, incumbent: 1, direction: 'minimize' })).keep).toBe(true);
  });
});
