import { describe, expect, it } from 'vitest';
import { createCounterProposer, createFakeHarness, createManualClock } from '@loop/internal-test-utils';
import type { LoopEvent } from '../contracts/events.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createFunctionProposer } from '../contracts/proposer.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { createLoop } from './create-loop.js';
import { anyOf, maxIterations, plateau, targetScore, wallClock } from '../contracts/stop-policy.js';
import { setup } from './test-fixtures/loop-setup.js';

describe('createLoop', () => {
  it('runs the baseline first and records it as iteration 0', async () => {
    const { loop, results } = setup([10, 9]);
    await loop.run();
    expect(results.rows[0]).toMatchObject({ iteration: 0, status: 'baseline', score: 10, description: 'baseline' });
  });

  it('keeps a strict improvement and reverts an equal score (equal reverts)', async () => {
    const { loop, results, artifact } = setup([10, 9, 9]);
    const summary = await loop.run();
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted']);
    expect(summary.best).toBe(9);
    expect(artifact.get()).toBe(1); // the equal candidate (value 2) was rolled back
  });

  it('keeps improvements in the maximize direction', async () => {
    const { loop, results } = setup([0.5, 0.6, 0.4, 0.7], {}, 'maximize');
    await loop.run();
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted', 'kept']);
  });

  it('returns a summary with counts, kept changes sorted by improvement and the stop reason', async () => {
    const { loop } = setup([10, 9.5, 7, 8, 6.5]);
    const summary = await loop.run();
    expect(summary).toMatchObject({
      baseline: 10,
      best: 6.5,
      iterations: 4,
      counts: { kept: 3, reverted: 1, rejected: 0, crash: 0 },
    });
    expect(summary.kept.map((k) => k.improvement)).toEqual([2.5, 0.5, 0.5]);
    expect(summary.kept[0]?.iteration).toBe(2);
    expect(summary.stop.reason).toBe('max-iterations');
  });

  it('stops on a plateau of consecutive non-improvements', async () => {
    const { loop, results } = setup([10, 11, 12, 9, 10, 10, 10, 1], { stop: plateau(3) });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('plateau');
    expect(results.rows).toHaveLength(7);
  });

  it('stops when the target score is reached', async () => {
    const { loop } = setup([10, 8, 5, 4, 1], { stop: targetScore(5) });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('target-reached');
    expect(summary.iterations).toBe(2);
  });

  it('stops when the wall-clock budget is used (injected clock)', async () => {
    const clock = createManualClock(1_000_000);
    const artifact = createMemoryArtifact(0);
    const loop = createLoop({
      artifact,
      rollback: createMemoryRollback(artifact),
      proposer: createCounterProposer(artifact),
      harness: createFakeHarness({ score: () => 5, onRun: () => clock.advance(60_000) }),
      scorer: createValueScorer('minimize'),
      stop: wallClock(5 * 60_000),
      clock,
    });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('wall-clock');
    expect(summary.iterations).toBe(4); // baseline + 4 runs of one minute each = 5 minutes
  });

  it('composes stop policies with anyOf: the first to fire wins', async () => {
    const { loop } = setup([10, 11, 11, 11, 11, 11], { stop: anyOf(maxIterations(10), plateau(2)) });
    expect((await loop.run()).stop.reason).toBe('plateau');
  });

  it('an abort stops the loop after restoring the last kept state', async () => {
    const controller = new AbortController();
    const artifact = createMemoryArtifact(0);
    const results = createMemoryResultsLog();
    let runs = 0;
    const loop = createLoop({
      artifact,
      results,
      rollback: createMemoryRollback(artifact),
      proposer: createCounterProposer(artifact),
      harness: createFakeHarness({
        score: () => {
          runs += 1;
          if (runs === 3) controller.abort(); // Ctrl-C during the second candidate's run
          return 10 - runs;
        },
      }),
      scorer: createValueScorer('minimize'),
      signal: controller.signal,
    });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('aborted');
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept']);
    expect(artifact.get()).toBe(1); // the in-flight candidate (2) was rolled back
  });

  it('rejects a change outside the mutable paths without evaluating it, saying it is outside the targets', async () => {
    const artifact = { ...createMemoryArtifact(0), mutable: ['nothing'] };
    const inner = createMemoryArtifact(0);
    const loopArtifact = { ...artifact, inspect: inner.inspect };
    const harness = createFakeHarness({ scores: [10] });
    const results = createMemoryResultsLog();
    const loop = createLoop({
      artifact: loopArtifact,
      results,
      rollback: createMemoryRollback(inner),
      proposer: createCounterProposer(inner),
      harness,
      scorer: createValueScorer('minimize'),
      stop: maxIterations(1),
    });
    await loop.run();
    expect(results.rows[1]).toMatchObject({ status: 'rejected', score: null });
    expect(results.rows[1]?.description).toMatch(/changed outside the targets value/);
    expect(harness.runs).toEqual([0]);
    expect(inner.get()).toBe(0);
  });

  it('does not evaluate a proposal that changed nothing', async () => {
    const artifact = createMemoryArtifact(0);
    const harness = createFakeHarness({ scores: [10] });
    const results = createMemoryResultsLog();
    const loop = createLoop({
      artifact,
      results,
      rollback: createMemoryRollback(artifact),
      proposer: createFunctionProposer('noop', () => ({ description: 'nothing' })),
      harness,
      scorer: createValueScorer('minimize'),
      stop: maxIterations(1),
    });
    await loop.run();
    expect(results.rows[1]).toMatchObject({ status: 'reverted', description: 'nothing (no change: not evaluated)' });
    expect(harness.runs).toEqual([0]);
  });

  it('emits typed events in order to listeners and async iterators', async () => {
    const { loop } = setup([10, 9, 11, { crash: 'exit-code' }]);
    const seen: LoopEvent['type'][] = [];
    const iterated: LoopEvent['type'][] = [];
    loop.on('kept', (e) => seen.push(e.type));
    loop.on('reverted', (e) => seen.push(e.type));
    loop.on('crash', (e) => seen.push(e.type));
    const consume = (async () => {
      for await (const e of loop.events()) iterated.push(e.type);
    })();
    await loop.run();
    await consume;
    expect(seen).toEqual(['kept', 'reverted', 'crash']);
    expect(iterated).toEqual([
      'iteration-started',
      'baseline',
      'iteration-started',
      'kept',
      'iteration-started',
      'reverted',
      'iteration-started',
      'crash',
      'stopped',
    ]);
  });
});
