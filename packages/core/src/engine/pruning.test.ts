import { describe, expect, it } from 'vitest';
import { createCounterProposer } from '@loop/internal-test-utils';
import { createFunctionHarness } from '../harness/function-harness.js';
import type { LoopEvent } from '../contracts/events.js';
import { strictImprovement, type KeepInput } from '../contracts/keep-policy.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { incumbentCurvePruner, nonFinitePruner } from '../policies/pruners.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { createLoop } from './create-loop.js';

/** Each state's training curve at steps 100..500 (minimize); the run's score is its last value. */
const curves: Record<number, number[]> = {
  0: [5, 4, 3, 2.5, 2],
  1: [4.5, 3.5, 2.6, 2, 1.5],
  2: [9, 8, 7, 6, 5],
  3: [4, Number.NaN, 1, 1, 1],
  4: [4.6, 3.6, 2.7, 2.05, 1.55],
};

function setup() {
  const artifact = createMemoryArtifact(0);
  const reported: Record<number, number[]> = {};
  const harness = createFunctionHarness('train', async ({ iteration, report, signal }) => {
    const curve = curves[artifact.get()]!;
    reported[iteration] = [];
    for (const [i, value] of curve.entries()) {
      if (signal.aborted) throw new Error('killed');
      reported[iteration]!.push(value);
      report?.((i + 1) * 100, value);
      await Promise.resolve();
    }
    return curve.at(-1)!;
  });
  const decided: number[] = [];
  const inner = strictImprovement();
  const keepPolicy = {
    name: 'spy',
    decide: (input: KeepInput) => (decided.push(input.candidate), inner.decide(input)),
  };
  const results = createMemoryResultsLog();
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer: createCounterProposer(artifact, (_v, i) => i),
    harness,
    keep: { policy: keepPolicy },
    results,
    scorer: createValueScorer('minimize'),
    stop: maxIterations(4),
    prune: { pruners: [nonFinitePruner(), incumbentCurvePruner({ margin: 0.05, warmupSteps: 200 })], steps: 500 },
  });
  return { loop, results, reported, decided, artifact };
}

describe('pruning doomed runs (issue 27)', () => {
  it(
    "a run worse than the incumbent's curve at the same step past the " +
      'warm-up is stopped there, reverted as a discard with its last report as ' +
      'score, never a crash',
    async () => {
      const { loop, results, reported, decided, artifact } = setup();
      const summary = await loop.run();
      expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted', 'reverted', 'reverted']);
      expect(results.rows[2]).toMatchObject({
        score: 8,
        description: 'value 1 -> 2 (pruned at step 200 of 500: 8 vs incumbent 3.5)',
      });
      expect(results.rows[2]?.data?.pruned).toEqual({
        step: 200,
        value: 8,
        reason: '8 vs incumbent 3.5',
        pruner: 'incumbent-curve',
        incumbent: 1, // the keep whose curve it was compared against
      });
      expect(reported[2]).toEqual([9, 8]); // the run saw the abort right after the pruning report
      expect(results.rows[3]).toMatchObject({
        score: null,
        description: 'value 1 -> 3 (pruned at step 200 of 500: value NaN)',
      });
      expect(summary.counts.crash).toBe(0);
      // A pruned run never reaches the keep policy; a run within the margin goes to its end and is decided.
      expect(decided).toEqual([1.5, 1.55]);
      expect(results.rows[4]?.data?.reports).toHaveLength(5);
      expect(artifact.get()).toBe(1);
    },
  );

  it(
    "the baseline is never pruned and every run's curve is in its row " +
      '(data.reports), with a live report event per point',
    async () => {
      const { loop, results } = setup();
      const events: LoopEvent[] = [];
      loop.on('report', (e) => events.push(e));
      loop.on('pruned', (e) => events.push(e));
      await loop.run();
      expect(results.rows[0]?.data?.reports).toEqual(curves[0]!.map((value, i) => ({ step: (i + 1) * 100, value })));
      expect(events.filter((e) => e.type === 'report' && e.iteration === 2)).toHaveLength(2);
      expect(events.find((e) => e.type === 'pruned')).toMatchObject({
        type: 'pruned',
        iteration: 2,
        step: 200,
        pruner: 'incumbent-curve',
      });
    },
  );

  it('without prune options every run goes to its end', async () => {
    const artifact = createMemoryArtifact(0);
    const results = createMemoryResultsLog();
    const harness = createFunctionHarness('train', ({ report }) => {
      const curve = curves[artifact.get()]!;
      curve.forEach((v, i) => report?.((i + 1) * 100, v));
      return curve.at(-1)!;
    });
    await createLoop({
      artifact,
      rollback: createMemoryRollback(artifact),
      proposer: createCounterProposer(artifact),
      harness,
      results,
      scorer: createValueScorer('minimize'),
      stop: maxIterations(2),
    }).run();
    expect(results.rows.map((r) => r.score)).toEqual([2, 1.5, 5]);
    expect(results.rows[2]?.data?.pruned).toBeUndefined();
  });
});
