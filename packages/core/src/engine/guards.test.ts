import { describe, expect, it } from 'vitest';
import { createCounterProposer, createFakeHarness, type FakeOutcome } from '@loop/internal-test-utils';
import type { LoopEvent } from '../contracts/events.js';
import type { Guard } from '../contracts/guard.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createMemoryWorkingCopies } from '../artifacts/memory-working-copies.js';
import { createFunctionHarness } from '../harness/function-harness.js';
import type { Proposer } from '../contracts/proposer.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import type { EngineState, StateStore } from '../contracts/state-store.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { createLoop } from './create-loop.js';
import type { LoopOptions } from './options.js';

/** A store that records every write, to prove the state is the last write. */
function recordingStore(order: string[]): StateStore & { writes: EngineState[] } {
  const writes: EngineState[] = [];
  return {
    name: 'recording',
    writes,
    read: () => writes.at(-1),
    write: (s) => void (writes.push(s), order.push(`state:${s.status}`)),
  };
}

function setup(scores: FakeOutcome[], guards: Guard[], extra: Partial<LoopOptions> = {}) {
  const order: string[] = [];
  const artifact = createMemoryArtifact(0);
  const memory = createMemoryRollback(artifact);
  const rollback = {
    ...memory,
    checkpoint: (i: number, plan?: unknown) => (
      order.push(`checkpoint:${i}${plan ? ':plan' : ''}`),
      memory.checkpoint(i)
    ),
    revert: (cp: Parameters<typeof memory.revert>[0], info: Parameters<typeof memory.revert>[1]) => (
      order.push(`revert:${info.iteration}`),
      memory.revert(cp, info)
    ),
    restoreBest: (id: string) => (order.push('restoreBest'), memory.restoreBest!(id)),
  };
  const results = createMemoryResultsLog();
  const store = recordingStore(order);
  const harness = createFakeHarness({ scores });
  const loop = createLoop({
    artifact,
    rollback,
    results,
    harness,
    proposer: createCounterProposer(artifact),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(scores.length - 1),
    keep: { guards },
    stateStore: store,
    ...extra,
  });
  return { artifact, results, store, order, harness, loop };
}

describe('guards', () => {
  it(
    'a beforeEdit skip records a reverted row with the guard status and ' +
      'note, and touches nothing (no checkpoint, no run)',
    async () => {
      const skipOdd: Guard = {
        name: 'ask',
        beforeEdit: ({ iteration }) =>
          iteration === 1 ? { action: 'skip', status: 'refused', note: 'the human said no' } : undefined,
      };
      const { results, order, harness, loop } = setup([10, 9], [skipOdd], { stop: maxIterations(2) });
      await loop.run();
      expect(results.rows[1]).toMatchObject({
        iteration: 1,
        status: 'reverted',
        label: 'refused',
        note: 'ask: the human said no',
      });
      expect(order.filter((o) => o.startsWith('checkpoint'))).toEqual(['checkpoint:0', 'checkpoint:2']);
      expect(harness.runs.length).toBe(2); // baseline + iteration 2 only
    },
  );

  it('a beforeRun reject rolls the change back unevaluated as class rejected with its label', async () => {
    const noBig: Guard = {
      name: 'files',
      beforeRun: ({ changes }) =>
        changes?.changed.length ? { action: 'reject', status: 'harness-file', note: 'edits the harness' } : undefined,
    };
    const { results, artifact, harness, loop } = setup([10, 9], [noBig], { stop: maxIterations(1) });
    await loop.run();
    expect(results.rows[1]).toMatchObject({ status: 'rejected', label: 'harness-file', score: null });
    expect(results.rows[1]!.description).toContain('(files: edits the harness)');
    expect(artifact.get()).toBe(0);
    expect(harness.runs.length).toBe(1);
  });

  it(
    'an afterScore reject blocks a keep (the checks gate): the better ' + 'candidate is reverted and the row says why',
    async () => {
      const checks: Guard = {
        name: 'checks',
        afterScore: () => ({ action: 'reject', status: 'checks_failed', note: 'npm test exited 1' }),
      };
      const { results, artifact, loop } = setup([10, 5], [checks]);
      const summary = await loop.run();
      expect(results.rows[1]).toMatchObject({
        status: 'reverted',
        label: 'checks_failed',
        score: 5,
        note: 'checks: npm test exited 1',
      });
      expect(summary.best).toBe(10);
      expect(artifact.get()).toBe(0);
    },
  );

  it('afterScore runs only for a candidate the keep policy would keep', async () => {
    let calls = 0;
    const checks: Guard = { name: 'checks', afterScore: () => void (calls += 1) };
    const { loop } = setup([10, 11, 12, 9], [checks]);
    await loop.run();
    expect(calls).toBe(1);
  });

  it(
    'a halt rolls the change back, writes a halted row, then runs the stop ' +
      'sequence: restoreBest, then the state store last; run() returns the ' +
      'summary',
    async () => {
      const tamper: Guard = {
        name: 'rubric',
        beforeRun: ({ iteration }) =>
          iteration === 2 ? { action: 'halt', status: 'rubric-tampered', note: 'rubric sha changed' } : undefined,
      };
      const events: LoopEvent['type'][] = [];
      const { results, order, artifact, loop } = setup([10, 9, 8, 7], [tamper]);
      loop.on('halted', (e) => events.push(e.type));
      loop.on('stopped', (e) => events.push(e.type));
      const summary = await loop.run();
      expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'halted']);
      expect(results.rows[2]!.label).toBe('rubric-tampered');
      expect(summary.stop.reason).toBe('halted');
      expect(summary.halted).toEqual({ status: 'rubric-tampered', note: 'rubric: rubric sha changed' });
      expect(artifact.get()).toBe(1);
      expect(order.slice(-3)).toEqual(['revert:2', 'restoreBest', 'state:stopped']);
      expect(events).toEqual(['halted', 'stopped']);
    },
  );

  it('a halt from one parallel candidate adopts no winner and still runs the stop sequence', async () => {
    const artifact = createMemoryArtifact(10);
    const results = createMemoryResultsLog();
    const workingCopies = createMemoryWorkingCopies(artifact, (copy) => createFunctionHarness('v', () => copy.get()));
    const proposer: Proposer = {
      name: 'k',
      propose: (c) => (
        (c.artifact as typeof artifact).set(9 - c.workingCopy!.k),
        { description: `k${c.workingCopy!.k}` }
      ),
    };
    const halt: Guard = {
      name: 'stop-k1',
      beforeRun: ({ description }) => (description === 'k1' ? { action: 'halt', note: 'no' } : undefined),
    };
    const summary = await createLoop({
      artifact,
      rollback: createMemoryRollback(artifact),
      results,
      proposer,
      harness: createFunctionHarness('v', () => artifact.get()),
      scorer: createValueScorer('minimize'),
      stop: maxIterations(4),
      keep: { guards: [halt] },
      parallel: { candidates: 2, workingCopies },
    }).run();
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'reverted', 'halted']);
    expect(summary.stop.reason).toBe('halted');
    expect(artifact.get()).toBe(10);
  });
});
