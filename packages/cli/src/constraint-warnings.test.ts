import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '@loop/core';
import { createConstraintWarnings } from './constraint-warnings.js';

const kept = (iteration: number, violations: unknown[]) =>
  ({
    type: 'kept',
    record: {
      iteration,
      candidateId: 'c',
      score: 1,
      status: 'kept',
      description: 'd',
      data: { constraints: { values: {}, samples: 1, violations } },
    },
  }) as unknown as LoopEvent;

describe('advisory constraint warnings under the stop summary (issue 28)', () => {
  it(
    'lists each kept row that broke an advisory constraint, with the ' + 'constraint and by how much; none: no lines',
    () => {
      const w = createConstraintWarnings();
      expect(w.lines()).toEqual([]);
      w.event(kept(1, []));
      w.event(kept(3, [{ constraint: 'latency_ms <= 200', mode: 'advisory', value: 230, bound: 200, violation: 30 }]));
      expect(w.lines()).toEqual([
        'warning: 1 kept change broke an advisory constraint:',
        '  iter 3  latency_ms <= 200 (by 30)',
      ]);
    },
  );
});
