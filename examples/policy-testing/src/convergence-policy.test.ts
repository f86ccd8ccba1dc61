import {
  anyOf,
  createLoop,
  createMemoryArtifact,
  createMemoryResultsLog,
  createMemoryRollback,
  createValueScorer,
  maxIterations,
} from '@loop/core';
import { wallClock } from '@loop/core/policies';
import { createCounterProposer, createFakeHarness, createManualClock } from '@loop/testing';
import { describe, expect, it } from 'vitest';
import { converged } from './convergence-policy.js';

/** A loop over scripted scores: no processes, no files, no real time. */
function loopWith(scores: number[], policy = converged(3, 0.05), clock = createManualClock()) {
  const artifact = createMemoryArtifact(0);
  const results = createMemoryResultsLog();
  const loop = createLoop({
    artifact,
    results,
    rollback: createMemoryRollback(artifact),
    proposer: createCounterProposer(artifact),
    harness: createFakeHarness({ scores, onRun: () => clock.advance(5 * 60_000) }), // each run "takes" 5 minutes
    scorer: createValueScorer('minimize'),
    stop: anyOf(policy, maxIterations(scores.length - 1)),
    clock,
  });
  return { loop, results };
}

describe('convergence stop policy against a fake harness', () => {
  it('stops once three iterations gained less than 0.05 in total', async () => {
    const { loop, results } = loopWith([3.0, 2.5, 2.2, 2.19, 2.18, 2.17, 1.0]);
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('converged');
    expect(results.rows).toHaveLength(6); // baseline + 5 iterations; the 1.0 is never reached
    expect(summary.best).toBe(2.17);
  });

  it('keeps going while gains are large', async () => {
    const { loop } = loopWith([3.0, 2.5, 2.0, 1.5, 1.0]);
    expect((await loop.run()).stop.reason).toBe('max-iterations');
  });

  it('equal scores count as no gain', async () => {
    const { loop } = loopWith([3.0, 3.0, 3.0, 3.0, 1.0]);
    expect((await loop.run()).stop.reason).toBe('converged');
  });

  it('combines with a wall-clock budget on a manual clock: an overnight budget in microseconds', async () => {
    const clock = createManualClock(Date.UTC(2026, 10, 30, 22));
    const scores = Array.from({ length: 200 }, (_, i) => 100 - i);
    const { loop } = loopWith(scores, anyOf(converged(3, 0.05), wallClock(8 * 3600_000)), clock);
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('wall-clock');
    expect(summary.iterations).toBe(95); // 8 h / 5 min = 96 runs including the baseline
  });
});
