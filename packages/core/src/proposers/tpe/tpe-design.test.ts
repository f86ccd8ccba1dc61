import { describe, expect, it } from 'vitest';
import { createMemoryArtifact } from '../../artifacts/memory-artifact.js';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import { createMemoryConfigAdapter } from './config-adapter.js';
import { ctx } from './test-fixtures/tpe-run.js';
import { inDesign } from './tpe-settings.js';
import { createTpeProposer } from './tpe-proposer.js';

const row = (iteration: number, status: IterationRecord['status'], score: number, description: string) =>
  ({ iteration, candidateId: '', score, status, description }) as IterationRecord;

describe('the start-up design with candidates in flight (async schedule, issue 27)', () => {
  it('hands out each design row once: with its rows taken by candidates in flight, the model proposes', () => {
    expect(inDesign(4, 1, 4, 6)).toBe(true); // a batch's second candidate: still the design
    expect(inDesign(2, 5, 2, 6)).toBe(false); // a long run holds back rows 3..7: the model
    expect(inDesign(1, 5, 1, 6)).toBe(true); // one row evaluated is no model yet
    expect(inDesign(6, 0, 6, 6)).toBe(false);
  });

  it('a proposal made while a long run holds back the rows after it is no second draw of a design row', async () => {
    // Four continuous parameters: a design row changes every one of them; the model's refinements one or two.
    const space = Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, { min: 0, max: 1 }]));
    const changed: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const history = [
        row(0, 'baseline', 5, 'baseline'),
        row(1, 'kept', 1, 'a 0.5 -> 0.9, b 0.5 -> 0.2, c 0.5 -> 0.7, d 0.5 -> 0.4'),
        row(2, 'reverted', 4, 'a 0.9 -> 0.1, b 0.2 -> 0.8, c 0.7 -> 0.3, d 0.4 -> 0.9'),
      ];
      const artifact = createMemoryArtifact<Record<string, unknown>>({ a: 0.9, b: 0.2, c: 0.7, d: 0.4 });
      const proposer = createTpeProposer({ config: createMemoryConfigAdapter(artifact), space, seed });
      // Iteration 8 with rows 3..7 in flight (not yet recorded).
      const { description } = await proposer.propose(ctx(history, 8));
      changed.push(description.split(', ').length);
    }
    expect(Math.min(...changed)).toBeLessThanOrEqual(2);
  });
});
