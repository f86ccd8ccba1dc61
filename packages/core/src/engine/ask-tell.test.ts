import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCounterProposer } from '@loop/internal-test-utils';
import type { LoopEvent } from '../contracts/events.js';
import { createFunctionHarness } from '../harness/function-harness.js';
import type { Guard } from '../contracts/guard.js';
import { createMemoryArtifact, createMemoryRollback, type MemoryArtifact } from '../artifacts/memory-artifact.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { createLoop } from './create-loop.js';
import type { LoopOptions } from './options.js';

/** A loop over a two-key value where only `x` is mutable; the score is `x` (minimize). */
function setup(extra: Partial<LoopOptions> = {}) {
  const value: MemoryArtifact<{ x: number; secret: number }> = createMemoryArtifact({ x: 10, secret: 0 });
  const artifact = {
    ...value,
    mutable: ['x'],
    inspect: () => ({ x: String(value.get().x), secret: String(value.get().secret) }),
  };
  const results = createMemoryResultsLog();
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(value),
    results,
    harness: createFunctionHarness('x', () => value.get().x),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(3),
    ...extra,
  });
  const set = (x: number) => value.set({ ...value.get(), x });
  return { value, results, loop, set };
}

describe('ask/tell: a host drives the engine one candidate at a time', () => {
  it(
    'ask opens a trial after the baseline, tell evaluates the host edit: ' + 'kept when better, reverted when not',
    async () => {
      const { loop, results, value, set } = setup();
      const t1 = await loop.ask();
      expect(t1.iteration).toBe(1);
      expect(t1.context.best).toBe(10);
      set(7);
      const o1 = await loop.tell(t1, { description: 'x = 7' });
      expect(o1.records).toMatchObject([{ iteration: 1, status: 'kept', score: 7 }]);
      const t2 = await loop.ask();
      set(9);
      const o2 = await loop.tell(t2, { description: 'x = 9' });
      expect(o2.records).toMatchObject([{ iteration: 2, status: 'reverted', score: 9 }]);
      expect(value.get().x).toBe(7); // the worse edit was rolled back
      expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted']);
    },
  );

  it(
    'the stop policy fires after a tell: its outcome carries the summary, ' + 'and later calls are LOOP_STOPPED',
    async () => {
      const { loop, set } = setup({ stop: maxIterations(1) });
      const t = await loop.ask();
      set(5);
      const out = await loop.tell(t, { description: 'x = 5' });
      expect(out.stopped).toMatchObject({ best: 5, stop: { reason: 'max-iterations' } });
      await expect(loop.ask()).rejects.toMatchObject({ code: 'LOOP_STOPPED' });
      await expect(loop.tell(t, { description: 'again' })).rejects.toMatchObject({ code: 'LOOP_STOPPED' });
      await expect(loop.step()).rejects.toMatchObject({ code: 'LOOP_STOPPED' });
    },
  );

  it(
    'misuse is a coded error that touches nothing: tell without ask, tell ' + 'twice, ask while a trial is open',
    async () => {
      const { loop, results, set } = setup();
      const t = await loop.ask();
      await expect(loop.ask()).rejects.toMatchObject({ code: 'TRIAL_OPEN' });
      await expect(loop.step()).rejects.toMatchObject({ code: 'TRIAL_OPEN' });
      await expect(loop.tell({ ...t }, { description: 'a copy' })).rejects.toMatchObject({ code: 'TRIAL_UNKNOWN' });
      set(8);
      await loop.tell(t, { description: 'x = 8' });
      await expect(loop.tell(t, { description: 'x = 8 again' })).rejects.toMatchObject({ code: 'TRIAL_UNKNOWN' });
      expect(results.rows.map((r) => r.iteration)).toEqual([0, 1]);
    },
  );

  it(
    'an edit outside the artifact is EDIT_OUTSIDE_ARTIFACT: nothing ' +
      'recorded, the trial stays open and can be told once fixed',
    async () => {
      const { loop, results, value, set } = setup();
      const t = await loop.ask();
      value.set({ x: 6, secret: 1 });
      await expect(loop.tell(t, { description: 'touches secret' })).rejects.toMatchObject({
        code: 'EDIT_OUTSIDE_ARTIFACT',
        details: { violations: ['secret'] },
      });
      expect(results.rows).toHaveLength(1);
      expect(value.get()).toEqual({ x: 6, secret: 1 }); // the host's edit is left as it was
      value.set({ x: 6, secret: 0 });
      set(6);
      expect((await loop.tell(t, { description: 'x = 6' })).records[0]).toMatchObject({ status: 'kept', score: 6 });
    },
  );

  it('stop() with an open trial rolls its edit back without a row and runs the stop sequence', async () => {
    const { loop, results, value, set } = setup();
    const t = await loop.ask();
    set(1);
    const summary = await loop.stop('host is done');
    expect(summary).toMatchObject({ best: 10, stop: { reason: 'host', message: 'host is done' } });
    expect(value.get().x).toBe(10);
    expect(results.rows).toHaveLength(1);
    await expect(loop.tell(t, { description: 'late' })).rejects.toMatchObject({ code: 'LOOP_STOPPED' });
    expect(await loop.stop()).toBe(summary); // idempotent
  });

  it('a host whose agent failed tells an error: a crash row "proposer failed", its edit rolled back', async () => {
    const { loop, results, value, set } = setup();
    const t = await loop.ask();
    set(3);
    await loop.tell(t, { error: 'agent timed out' });
    expect(results.rows[1]).toMatchObject({ status: 'crash', description: 'proposer failed: agent timed out' });
    expect(value.get().x).toBe(10);
  });

  it('a candidate a beforeEdit guard skips is recorded at ask, and the next trial is opened', async () => {
    const skipFirst: Guard = {
      name: 'once',
      beforeEdit: ({ iteration }) => (iteration === 1 ? { action: 'skip', note: 'not now' } : undefined),
    };
    const { loop, results } = setup({ keep: { guards: [skipFirst] } });
    const t = await loop.ask();
    expect(t.iteration).toBe(2);
    expect(results.rows[1]).toMatchObject({ iteration: 1, status: 'reverted', note: 'once: not now' });
  });

  it(
    'step() runs one iteration with the configured proposer; run() without a ' +
      'proposer is CONFIG_INVALID before any baseline',
    async () => {
      const artifact = createMemoryArtifact(5);
      const results = createMemoryResultsLog();
      const base = {
        artifact,
        rollback: createMemoryRollback(artifact),
        results,
        harness: createFunctionHarness('v', () => artifact.get()),
        scorer: createValueScorer('maximize'),
      };
      const loop = createLoop({ ...base, proposer: createCounterProposer(artifact), stop: maxIterations(5) });
      const out = await loop.step();
      expect(out.records).toMatchObject([{ iteration: 1, status: 'kept', score: 6 }]);
      expect(out.stopped).toBeUndefined();
      const bare = createLoop({ ...base, results: createMemoryResultsLog() });
      await expect(bare.run()).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    },
  );
});

describe('one record per candidate and one order of writes', () => {
  it(
    'the candidate record (proposal, run and score data) reaches ' +
      'ResultsLog.append and every row event: baseline, kept, reverted, crash, ' +
      'halted',
    async () => {
      const value = createMemoryArtifact(0);
      const appended: unknown[] = [];
      const memory = createMemoryResultsLog();
      const results = {
        ...memory,
        append: (r: Parameters<typeof memory.append>[0]) => (appended.push(r.data), memory.append(r)),
      };
      const scores = [10, 9, 11, Number.NaN, 1];
      const harness = createFunctionHarness('v', ({ iteration }) => ({
        value: scores[iteration]!,
        data: { reports: [{ step: 1, value: iteration }] },
      }));
      const events: LoopEvent[] = [];
      const loop = createLoop({
        artifact: value,
        rollback: createMemoryRollback(value),
        results,
        harness,
        scorer: createValueScorer('minimize'),
        proposer: {
          name: 'p',
          propose: ({ iteration }) => (
            value.set(iteration),
            { description: `v=${iteration}`, data: { params: { v: iteration } } }
          ),
        },
        keep: {
          guards: [
            {
              name: 'four',
              beforeRun: ({ iteration }) => (iteration === 4 ? { action: 'halt', note: 'stop here' } : undefined),
            },
          ],
        },
        stop: maxIterations(5),
      });
      for (const type of ['baseline', 'kept', 'reverted', 'crash', 'halted'] as const)
        loop.on(type, (e) => events.push(e));
      await loop.run();
      expect(appended.slice(1)).toEqual([
        { params: { v: 1 }, reports: [{ step: 1, value: 1 }] },
        { params: { v: 2 }, reports: [{ step: 1, value: 2 }] },
        { params: { v: 3 }, reports: [{ step: 1, value: 3 }] },
        { params: { v: 4 } }, // halted before its run
      ]);
      expect(
        events.map((e) => [e.type, 'record' in e ? (e.record.data?.params ?? e.record.data?.reports) : undefined]),
      ).toEqual([
        ['baseline', [{ step: 1, value: 0 }]],
        ['kept', { v: 1 }],
        ['reverted', { v: 2 }],
        ['crash', { v: 3 }],
        ['halted', { v: 4 }],
      ]);
    },
  );

  it(
    'a kept handler reading state.json sees the iteration it is told about ' + '(events follow the state write)',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'loop-order-'));
      try {
        const statePath = join(dir, 'state.json');
        const seen: [number, number][] = [];
        const { loop, set } = setup({ files: { statePath } });
        // Read when the event fires (synchronously): an asynchronous read lands whenever the thread
        // pool gets to it, possibly after the next state write, and proves nothing about the order.
        const stateIteration = () => (JSON.parse(readFileSync(statePath, 'utf8')) as { iteration: number }).iteration;
        loop.on('kept', (e) => void seen.push([e.record.iteration, stateIteration()]));
        loop.on('reverted', (e) => void seen.push([e.record.iteration, stateIteration()]));
        for (const x of [8, 9, 7]) {
          const t = await loop.ask();
          set(x);
          await loop.tell(t, { description: `x = ${x}` });
        }
        await new Promise((r) => setImmediate(r));
        expect(seen).toEqual([
          [1, 1],
          [2, 2],
          [3, 3],
        ]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it(
    'onStop runs after the best state is restored and before the last state ' + 'write, with the summary and state',
    async () => {
      const order: string[] = [];
      const value = createMemoryArtifact(0);
      const memory = createMemoryRollback(value);
      const rollback = { ...memory, restoreBest: (id: string) => (order.push('restoreBest'), memory.restoreBest!(id)) };
      const stateStore = {
        name: 'rec',
        read: () => undefined,
        write: (s: { status: string }) => void order.push(`state:${s.status}`),
      };
      const loop = createLoop({
        artifact: value,
        rollback,
        stateStore,
        harness: createFunctionHarness('v', () => value.get()),
        scorer: createValueScorer('maximize'),
        proposer: createCounterProposer(value),
        stop: maxIterations(2),
        onStop: (summary, state) => void order.push(`onStop:${summary.best}:${state.iteration}`),
      });
      loop.on('stopped', () => order.push('stopped'));
      await loop.run();
      expect(order.slice(-4)).toEqual(['restoreBest', 'onStop:2:2', 'state:stopped', 'stopped']);
    },
  );
});
