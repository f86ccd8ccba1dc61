import { describe, expect, it } from 'vitest';
import { createCounterProposer, createFakeHarness } from '@loop/internal-test-utils';
import {
  createLoop,
  createMemoryArtifact,
  createMemoryResultsLog,
  createMemoryStateStore,
  createValueScorer,
  maxIterations,
  noRollback,
} from '../index.js';

describe('noRollback: the rollback that keeps every edit', () => {
  it('a reverted candidate stays in the artifact: nothing is rolled back, the row still says reverted', async () => {
    const artifact = createMemoryArtifact(0);
    const results = createMemoryResultsLog();
    await createLoop({
      artifact,
      rollback: noRollback(),
      proposer: createCounterProposer(artifact),
      harness: createFakeHarness({ scores: [10, 12, 9] }),
      scorer: createValueScorer('minimize'),
      stop: maxIterations(2),
      results,
    }).run();
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'reverted', 'kept']);
    expect(artifact.get()).toBe(2);
  });

  it("has only the required members, and its checkpoint and kept ids are ''", async () => {
    const rollback = noRollback();
    expect(Object.keys(rollback).sort()).toEqual(['checkpoint', 'keep', 'name', 'revert']);
    const cp = await rollback.checkpoint(3);
    expect(cp).toEqual({ iteration: 3, id: '' });
    expect(await rollback.keep(cp, 'x')).toBe('');
  });
});

describe('createMemoryStateStore: the engine state in memory', () => {
  it("keeps the engine's state writes in order, the stop sequence's last, and reads the last", async () => {
    const artifact = createMemoryArtifact(0);
    const stateStore = createMemoryStateStore();
    await createLoop({
      artifact,
      rollback: noRollback(),
      proposer: createCounterProposer(artifact),
      harness: createFakeHarness({ scores: [10, 9, 8] }),
      scorer: createValueScorer('minimize'),
      stop: maxIterations(2),
      stateStore,
    }).run();
    expect(stateStore.writes.map((s) => `${s.status}:${s.iteration}`)).toEqual([
      'running:0',
      'running:1',
      'running:2',
      'stopped:2',
    ]);
    expect(await stateStore.read()).toEqual(stateStore.writes.at(-1));
    expect((await stateStore.read())?.best).toBe(8);
  });

  it('reads undefined before the first write, or the initial state it was given (a resumed run)', async () => {
    expect(createMemoryStateStore().read()).toBeUndefined();
    const artifact = createMemoryArtifact(0);
    const first = createMemoryStateStore();
    await createLoop({
      artifact,
      rollback: noRollback(),
      proposer: createCounterProposer(artifact),
      harness: createFakeHarness({ scores: [10, 9] }),
      scorer: createValueScorer('minimize'),
      stop: maxIterations(1),
      stateStore: first,
    }).run();
    const last = first.writes.at(-1)!;
    const resumed = createMemoryStateStore(last);
    expect(resumed.read()).toEqual(last);
    expect(resumed.writes).toEqual([]);
  });
});
