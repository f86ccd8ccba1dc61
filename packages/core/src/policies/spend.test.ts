import { describe, expect, it } from 'vitest';
import type { IterationRecord, IterationStatus } from '../contracts/iteration-record.js';
import { describeSpend, spendOf } from './spend.js';

const row = (iteration: number, status: IterationStatus, usd?: number, tokens?: number): IterationRecord => ({
  iteration,
  candidateId: '',
  score: null,
  status,
  description: '',
  ...(usd !== undefined || tokens !== undefined
    ? { data: { cost: { ...(usd !== undefined ? { usd } : {}), ...(tokens !== undefined ? { tokens } : {}) } } }
    : {}),
});

describe('spend', () => {
  it('sums the rows data.cost and splits it into kept, discarded (reverted, rejected) and crashed rows', () => {
    const s = spendOf([
      row(0, 'baseline'),
      row(1, 'kept', 0.1, 100),
      row(2, 'reverted', 0.2, 200),
      row(3, 'rejected', 0.05, 50),
      row(4, 'crash', 0.3, 300),
      row(5, 'reverted'),
    ]);
    expect(s.total).toEqual({ rows: 4, usd: 0.65, tokens: 650 });
    expect(s.kept).toEqual({ rows: 1, usd: 0.1, tokens: 100 });
    expect(s.discarded.rows).toBe(2);
    expect(s.crashed).toEqual({ rows: 1, usd: 0.3, tokens: 300 });
    expect(describeSpend(s)).toBe(
      'spent $0.6500 and 650 tokens on 4 proposals: $0.1000 and 100 tokens on ' +
        '1 kept, $0.2500 and 250 tokens on 2 discarded, $0.3000 and 300 tokens on ' +
        '1 crashed',
    );
  });
  it('says nothing when no row carries a cost, and only tokens when no row reported dollars', () => {
    expect(describeSpend(spendOf([row(0, 'baseline'), row(1, 'kept')]))).toBeUndefined();
    expect(describeSpend(spendOf([row(1, 'kept', undefined, 1500)]))).toBe(
      'spent 1,500 tokens on 1 proposal: 1,500 tokens on 1 kept',
    );
  });
});
