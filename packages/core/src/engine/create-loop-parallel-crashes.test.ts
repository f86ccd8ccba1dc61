import { describe, expect, it } from 'vitest';
import { createFunctionHarness } from '../harness/function-harness.js';
import { type MemoryArtifact } from '../artifacts/memory-artifact.js';
import type { Proposer } from '../contracts/proposer.js';
import { setup } from './test-fixtures/parallel-setup.js';

describe('createLoop: parallel candidates that crash, are repaired or are aborted', () => {
  it(
    'a crash in one candidate does not affect the others: a throwing ' +
      'proposer and a crashing run are crash rows, the third candidate is kept',
    async () => {
      const proposer: Proposer = {
        name: 'mixed',
        propose: (c) => {
          if (c.workingCopy!.k === 0) throw new Error('agent quota exceeded');
          (c.artifact as MemoryArtifact<number>).set(c.workingCopy!.k === 1 ? -1 : 4);
          return { description: `slot ${c.workingCopy!.k}` };
        },
      };
      const { artifact, results, loop } = setup({
        candidates: 3,
        propose: (v) => v,
        proposer,
        copyHarness: (copy) =>
          createFunctionHarness('crashy', () => {
            if (copy.get() < 0) throw new Error('loss is NaN');
            return copy.get();
          }),
      });
      const summary = await loop.run();
      expect(results.rows.slice(1).map((r) => [r.status, r.description])).toEqual([
        ['crash', 'proposer failed: agent quota exceeded'],
        ['crash', expect.stringMatching(/^slot 1 \(crash: .*loss is NaN/)],
        ['kept', 'slot 2'],
      ]);
      expect(artifact.get()).toBe(4);
      expect(summary.counts).toMatchObject({ kept: 1, crash: 2 });
    },
  );

  it('an aborted batch writes no rows and leaves the main workspace at the incumbent', async () => {
    const controller = new AbortController();
    const { artifact, results, loop } = setup({
      candidates: 2,
      stop: 10,
      propose: (v, k) => v - k - 1,
      copyHarness: (copy, k) => createFunctionHarness('abort', () => (k === 1 && controller.abort(), copy.get())),
      extra: { signal: controller.signal },
    });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('aborted');
    expect(results.rows).toHaveLength(1);
    expect(artifact.get()).toBe(10);
  });

  it(
    'a parallel candidate that crashes is repaired in its own copy ' + '(maxRepairAttempts) and can then be kept',
    async () => {
      const crashedOnce = new Set<number>();
      const proposer: Proposer = {
        name: 'broken-then-fixed',
        propose: (c) => {
          const copy = c.artifact as MemoryArtifact<number>;
          copy.set(copy.get() - 1 - c.workingCopy!.k);
          return { description: `candidate ${c.workingCopy!.k}` };
        },
        repair: (c) => ({ description: `fixed ${c.workingCopy!.k}` }),
      };
      const { artifact, results, loop } = setup({
        candidates: 2,
        propose: (v) => v,
        proposer,
        copyHarness: (copy, k) =>
          createFunctionHarness('crash-first', () => {
            if (k === 1 && !crashedOnce.has(k)) {
              crashedOnce.add(k);
              throw new Error('typo');
            }
            return copy.get();
          }),
        extra: { recovery: { maxRepairAttempts: 1 } },
      });
      await loop.run();
      expect(results.rows.map((r) => [r.status, r.description])).toEqual([
        ['baseline', 'baseline'],
        ['reverted', 'candidate 0 (not the best of the batch)'],
        ['kept', 'candidate 1; repair 1: fixed 1'],
      ]);
      expect(artifact.get()).toBe(8);
    },
  );

  it('seed-only detection runs per parallel candidate and sees the copy', async () => {
    const seen: (string | undefined)[] = [];
    const { results, loop } = setup({
      candidates: 2,
      propose: (v, k) => v - k - 1,
      extra: {
        keep: {
          seedOnlyDetector: {
            name: 'k1-is-seed',
            isSeedOnlyChange: (changes) => (seen.push(changes.description), changes.description.includes('1')),
          },
        },
      },
      proposer: {
        name: 'labelled',
        propose: (c) => {
          const copy = c.artifact as MemoryArtifact<number>;
          copy.set(copy.get() - c.workingCopy!.k - 1);
          return { description: `candidate ${c.workingCopy!.k}` };
        },
      },
    });
    await loop.run();
    expect(seen.sort()).toEqual(['candidate 0', 'candidate 1']);
    expect(results.rows[2]!.description).toContain('(seed-only change)');
  });
});
