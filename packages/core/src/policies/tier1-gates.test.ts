import { describe, expect, it } from 'vitest';
import { strictImprovement } from '../contracts/keep-policy.js';
import { tier1Gates } from './tier1-gates.js';

describe('tier1Gates', () => {
  const policy = tier1Gates(strictImprovement(), { status: 'reverted-redtest' });
  it(
    'a red gate refuses the keep whatever the score, naming the gate and ' +
      'labelling the row (seed 002: green to red is an automatic revert)',
    async () => {
      const d = await policy.decide({
        candidate: 99,
        incumbent: 1,
        direction: 'maximize',
        candidateGates: [{ testsGreen: false, coverageOk: true }],
      });
      expect(d).toEqual({ keep: false, reason: 'Tier-1 gate red: testsGreen', status: 'reverted-redtest' });
    },
  );
  it('all gates green (or none) defer to the inner policy', async () => {
    expect(
      (
        await policy.decide({
          candidate: 2,
          incumbent: 1,
          direction: 'maximize',
          candidateGates: [{ testsGreen: true }],
        })
      ).keep,
    ).toBe(true);
    expect((await policy.decide({ candidate: 1, incumbent: 1, direction: 'maximize' })).keep).toBe(false);
  });
});
