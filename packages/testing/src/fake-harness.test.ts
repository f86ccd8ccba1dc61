import type { RunContext, RunRecord } from '@loop/core';
import { describe, expect, it } from 'vitest';
import { createFakeHarness, type FakeHarness } from './fake-harness.js';
import { createManualClock } from './manual-clock.js';

const context = (iteration: number) => ({ iteration, signal: new AbortController().signal }) as unknown as RunContext;
/** The fake harness answers synchronously. */
const run = (harness: FakeHarness, iteration: number) => harness.run(context(iteration)) as RunRecord;

describe('createFakeHarness', () => {
  it('returns the scripted scores in order, then the score function, and records the iterations it ran', () => {
    const harness = createFakeHarness({
      scores: [10, { value: 9, durationMs: 500 }],
      score: ({ iteration }) => 100 - iteration,
    });
    const records = [0, 1, 2].map((i) => run(harness, i));
    expect(records.map((r) => ('value' in r ? r.value : undefined))).toEqual([10, 9, 98]);
    expect(records[1]!.durationMs).toBe(500);
    expect(harness.runs).toEqual([0, 1, 2]);
  });

  it('maps each scripted crash to the failed run the scorer sees: timeout, non-zero exit, no value, NaN', () => {
    const harness = createFakeHarness({
      scores: [{ crash: 'timeout' }, { crash: 'exit-code' }, { crash: 'no-metric' }, { crash: 'nan' }],
    });
    const [timeout, exit, none, nan] = [0, 1, 2, 3].map((i) => run(harness, i));
    expect(timeout).toMatchObject({ timedOut: true, signal: 'SIGKILL', exitCode: null });
    expect(exit).toMatchObject({ exitCode: 1, timedOut: false });
    expect(none).not.toHaveProperty('value');
    expect(Number.isNaN((nan as { value: number }).value)).toBe(true);
  });

  it('throws a plain Error when the script is exhausted and there is no score function', () => {
    const harness = createFakeHarness({ scores: [1] });
    run(harness, 0);
    expect(() => run(harness, 1)).toThrow('script exhausted');
  });

  it('onRun sees every run, e.g. to advance a manual clock by the run duration', () => {
    const clock = createManualClock(1_000);
    const harness = createFakeHarness({ scores: [1, 2], onRun: () => clock.advance(60_000) });
    run(harness, 0);
    run(harness, 1);
    expect(clock.now()).toBe(121_000);
    clock.set(5);
    expect(clock.now()).toBe(5);
  });
});
