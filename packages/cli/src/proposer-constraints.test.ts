import { describe, expect, it } from 'vitest';
import { proposerConstraints } from './proposer-constraints.js';

const row = (feasibility: (number | null)[]) => ({
  iteration: 1,
  candidateId: '',
  score: 1,
  status: 'reverted' as const,
  description: '',
  data: { constraints: { feasibility } },
});

describe("the config's constraints reach the proposers", () => {
  it(
    "the model sees the blocking constraints' recorded violations (advisory " +
      'ones left out); the prompt sees every one, named by its expression',
    () => {
      const p = proposerConstraints([
        'rss_mb <= 100',
        { rule: 'p99_ms <= 50', mode: 'advisory' },
        { rule: 'ops >= 10' },
      ]);
      expect(p.model?.constraints(row([5, 3, null]))).toEqual([5, Infinity]);
      expect(p.prompt?.constraints(row([5, 3, null]))).toEqual([5, 3, Infinity]);
      expect(p.prompt?.constraintNames).toEqual(['rss_mb <= 100', 'p99_ms <= 50', 'ops >= 10']);
      expect(
        p.model?.constraints({ iteration: 0, candidateId: '', score: 1, status: 'baseline', description: '' }),
      ).toBeUndefined();
    },
  );

  it('without constraints the proposers get nothing; with only advisory ones the model gets nothing', () => {
    expect(proposerConstraints([])).toEqual({});
    expect(proposerConstraints([{ rule: 'a <= 1', mode: 'advisory' }]).model).toBeUndefined();
  });
});
