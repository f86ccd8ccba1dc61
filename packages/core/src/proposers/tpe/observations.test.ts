import { describe, expect, it } from 'vitest';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import { rebuildObservations } from './observations.js';

const row = (
  iteration: number,
  status: IterationRecord['status'],
  score: number | null,
  description: string,
  pruned = false,
): IterationRecord => ({
  iteration,
  candidateId: '',
  score,
  status,
  description,
  ...(pruned ? { data: { pruned: { step: 200, value: score, reason: 'r', pruner: 'incumbent-curve' } } } : {}),
});

describe("the model-based proposer's observations of pruned runs (issue 27)", () => {
  it(
    'a pruned run is an observation ranked by its last report; one pruned on ' +
      'a non-finite report is avoided like a crash',
    () => {
      const history = [
        row(0, 'baseline', 3, 'baseline'),
        row(1, 'reverted', 4.2, 'lr 0.1 -> 0.5 (pruned at step 200 of 3000: 4.2 vs incumbent 3.3)', true),
        row(2, 'reverted', null, 'lr 0.1 -> 0.9 (pruned at step 100: value NaN)', true),
      ];
      const obs = rebuildObservations(history, { lr: 0.1 }, new Set(['lr']), 'minimize');
      expect(obs).toEqual([
        { iteration: 0, config: { lr: 0.1 }, loss: 3 },
        { iteration: 1, config: { lr: 0.5 }, loss: 4.2, prunedAt: 200 },
        { iteration: 2, config: { lr: 0.9 } },
      ]);
    },
  );
});
