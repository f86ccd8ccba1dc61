import { describe, expect, it } from 'vitest';
import { createContextProposer } from '@loop/test-utils';
import { createFunctionHarness } from '../function-harness.js';
import { createMemoryArtifact, createMemoryRollback } from '../memory.js';
import { createMemoryWorkingCopies } from '../memory-working-copies.js';
import { createValueScorer } from '../regex-scorer.js';
import { createMemoryResultsLog } from '../results-log.js';
import { maxIterations } from '../stop-policy.js';
import { createLoop } from './create-loop.js';

describe('skipDuplicates: a tree already evaluated in this run is not evaluated again (seed 001, issue 32)', () => {
  it('in place: a proposal equal to a discarded one (or to the baseline) is a "duplicate of iteration N" row, not run', async () => {
    const artifact = createMemoryArtifact(0);
    const values = [5, 3, 5, 0, 7];
    let runs = 0;
    const results = createMemoryResultsLog();
    const loop = createLoop({
      artifact,
      rollback: createMemoryRollback(artifact),
      results,
      harness: createFunctionHarness('v', () => (runs++, artifact.get())),
      scorer: createValueScorer('maximize'),
      proposer: { name: 'list', propose: ({ iteration }) => (artifact.set(values[iteration - 1]!), { description: `v=${values[iteration - 1]}` }) },
      skipDuplicates: true,
      stop: maxIterations(5),
    });
    await loop.run();
    // 5 kept, 3 reverted, 5 again: the incumbent's own tree is "no change"; 0 is the baseline's tree.
    expect(results.rows.map((r) => r.description)).toEqual(['baseline', 'v=5', 'v=3', 'v=5 (no change: not evaluated)', 'v=0 (duplicate of iteration 0: not evaluated)', 'v=7']);
    expect(runs).toBe(1 + 3);
    const again = createMemoryArtifact(0);
    let plainRuns = 0;
    const plain = createLoop({
      artifact: again,
      rollback: createMemoryRollback(again),
      harness: createFunctionHarness('v', () => (plainRuns++, again.get())),
      scorer: createValueScorer('maximize'),
      proposer: { name: 'list', propose: ({ iteration }) => (again.set([5, 3, 3][iteration - 1]!), { description: 'v' }) },
      stop: maxIterations(3),
    });
    await plain.run();
    expect(plainRuns).toBe(4); // off by default (the core stays neutral): the second 3 is evaluated again
  });

  it('in a parallel batch: two copies with the same tree are evaluated once; the twin is a duplicate row', async () => {
    const artifact = createMemoryArtifact(0);
    let runs = 0;
    const results = createMemoryResultsLog();
    const loop = createLoop({
      artifact,
      rollback: createMemoryRollback(artifact),
      results,
      harness: createFunctionHarness('v', () => artifact.get()),
      scorer: createValueScorer('maximize'),
      proposer: createContextProposer<number>((v, { workingCopy }) => v + 1 + ((workingCopy?.k ?? 0) === 2 ? 1 : 0)),
      parallel: { candidates: 3, workingCopies: createMemoryWorkingCopies(artifact, (copy) => createFunctionHarness('v', () => (runs++, copy.get()))) },
      skipDuplicates: true,
      stop: maxIterations(3),
    });
    await loop.run();
    const batch = results.rows.slice(1);
    expect(batch.filter((r) => /duplicate of iteration \d: not evaluated/.test(r.description))).toHaveLength(1);
    expect(runs).toBe(2);
    expect(artifact.get()).toBe(2);
  });
});
