import { describe, expect, it } from 'vitest';
import { createBarrier } from '@loop/internal-test-utils';
import { isLoopError } from '../contracts/errors.js';
import type { LoopEvent } from '../contracts/events.js';
import { createFunctionHarness } from '../harness/function-harness.js';
import type { KeepInput, KeepPolicy } from '../contracts/keep-policy.js';
import { createLoop } from './create-loop.js';
import type { LoopOptions } from './options.js';
import { setup } from './test-fixtures/parallel-setup.js';

describe('createLoop: parallel candidates', () => {
  it(
    'K candidates are evaluated concurrently: each run waits at a barrier ' + 'of K = 3 (deferred promises, no sleeps)',
    async () => {
      const barrier = createBarrier(3);
      const { results, loop } = setup({
        candidates: 3,
        propose: (v, k) => v - k - 1,
        copyHarness: (copy) => createFunctionHarness('barrier', async () => (await barrier.arrive(), copy.get())),
      });
      await loop.run();
      expect(barrier.arrived()).toBe(3);
      expect(barrier.maxWaiting()).toBe(3);
      expect(results.rows.map((r) => r.iteration)).toEqual([0, 1, 2, 3]);
    },
  );

  it('concurrency caps the candidates in flight (p-limit): K = 4, concurrency 2 runs at most 2 at once', async () => {
    let inFlight = 0;
    let most = 0;
    const { results, loop } = setup({
      candidates: 4,
      parallel: { concurrency: 2 },
      propose: (v, k) => v - k - 1,
      copyHarness: (copy) =>
        createFunctionHarness('count', async () => {
          most = Math.max(most, ++inFlight);
          for (let i = 0; i < 5; i++) await Promise.resolve();
          inFlight -= 1;
          return copy.get();
        }),
    });
    await loop.run();
    expect(most).toBe(2);
    expect(results.rows).toHaveLength(5);
  });

  it(
    'the best passing candidate is kept and the others reverted ("not the ' +
      'best of the batch"); the main workspace gets the winner',
    async () => {
      const events: LoopEvent[] = [];
      const { artifact, results, loop } = setup({ candidates: 3, propose: (_v, k) => [7, 5, 12][k]! });
      loop.on('kept', (e) => events.push(e));
      loop.on('reverted', (e) => events.push(e));
      const summary = await loop.run();
      expect(results.rows.map((r) => [r.iteration, r.score, r.status, r.description])).toEqual([
        [0, 10, 'baseline', 'baseline'],
        [1, 7, 'reverted', 'value 10 -> 7 (not the best of the batch)'],
        [2, 5, 'kept', 'value 10 -> 5'],
        [3, 12, 'reverted', 'value 10 -> 12'],
      ]);
      expect(artifact.get()).toBe(5);
      expect(summary).toMatchObject({ best: 5, counts: { kept: 1, reverted: 2 } });
      expect(results.rows[2]!.candidateId).toBe(summary.bestId);
      const notBest = events.find((e) => e.type === 'reverted' && e.record.iteration === 1) as Extract<
        LoopEvent,
        { type: 'reverted' }
      >;
      expect(notBest.decision).toMatchObject({
        keep: false,
        reason: expect.stringMatching(/^not the best of the batch: passed \(improved by 3\) but iteration 2 scored 5$/),
      });
    },
  );

  it(
    'no candidate passing keeps nothing: equal and worse candidates are ' +
      'reverted (each change saved through rollback.commit and revert; the ' +
      'unchanged one has no id) and the main workspace stays at the incumbent',
    async () => {
      const { artifact, results, loop } = setup({ candidates: 3, propose: (_v, k) => [11, 10, 12][k]! });
      const summary = await loop.run();
      expect(results.rows.slice(1).map((r) => [r.status, r.candidateId])).toEqual([
        ['reverted', 'v1'],
        ['reverted', ''],
        ['reverted', 'v2'],
      ]);
      expect(summary.counts.kept).toBe(0);
      expect(artifact.get()).toBe(10);
    },
  );

  it(
    'every candidate gets a row with its own iteration number, batch after ' +
      'batch; the next batch starts from the adopted winner',
    async () => {
      const seen: [number, number][] = [];
      const { artifact, results, loop } = setup({
        candidates: 2,
        stop: 4,
        propose: (v, k, iteration) => (seen.push([iteration, v]), v - (k + 1)),
      });
      const summary = await loop.run();
      expect(results.rows.map((r) => [r.iteration, r.status])).toEqual([
        [0, 'baseline'],
        [1, 'reverted'],
        [2, 'kept'],
        [3, 'reverted'],
        [4, 'kept'],
      ]);
      expect(seen.sort((a, b) => a[0] - b[0])).toEqual([
        [1, 10],
        [2, 10],
        [3, 8],
        [4, 8],
      ]);
      expect(artifact.get()).toBe(6);
      expect(summary.iterations).toBe(4);
    },
  );

  it(
    'the incumbent is re-measured concurrently when asked ' +
      '(remeasureIncumbent: 2): its first re-run overlaps the K = 2 candidates ' +
      'and decisions use the fresh samples',
    async () => {
      const barrier = createBarrier(3);
      const inputs: KeepInput[] = [];
      const recording: KeepPolicy = {
        name: 'record',
        decide: (input) => (
          inputs.push({ ...input, incumbentSamples: [...input.incumbentSamples!] }),
          { keep: false, reason: 'recorded' }
        ),
      };
      let mainRuns = 0;
      const { loop } = setup({
        candidates: 2,
        parallel: { remeasureIncumbent: 2 },
        propose: (v, k) => v - k - 1,
        copyHarness: (copy) => createFunctionHarness('barrier', async () => (await barrier.arrive(), copy.get())),
        mainHarness: () =>
          createFunctionHarness('incumbent', async () => {
            mainRuns += 1;
            if (mainRuns === 1) return 10; // the baseline
            if (mainRuns === 2) await barrier.arrive(); // the first re-measure, under the batch's load
            return [9.5, 9.7][mainRuns - 2]!;
          }),
        extra: { keep: { policy: recording } },
      });
      await loop.run();
      expect(barrier.maxWaiting()).toBe(3);
      expect(mainRuns).toBe(3);
      expect(inputs.map((i) => [i.incumbent, i.incumbentSamples])).toEqual([
        [9.6, [9.5, 9.7]],
        [9.6, [9.5, 9.7]],
      ]);
    },
  );

  it(
    'without remeasureIncumbent the stored incumbent samples are used and ' +
      'the main harness runs only for the baseline',
    async () => {
      let mainRuns = 0;
      const inputs: number[][] = [];
      const { loop } = setup({
        candidates: 2,
        propose: (v, k) => v - k - 1,
        mainHarness: (a) => createFunctionHarness('incumbent', () => (mainRuns++, a.get())),
        extra: {
          keep: {
            policy: {
              name: 'record',
              decide: (i) => (inputs.push([...i.incumbentSamples!]), { keep: false, reason: 'recorded' }),
            },
          },
        },
      });
      await loop.run();
      expect(mainRuns).toBe(1);
      expect(inputs).toEqual([[10], [10]]);
    },
  );

  it("a keep policy's re-runs (input.sample) run in the candidate's own copy with the next repeat", async () => {
    const runs: [number, number | undefined, number][] = [];
    const { results, loop } = setup({
      candidates: 2,
      propose: (v, k) => v - k - 1,
      copyHarness: (copy, k) =>
        createFunctionHarness('value', (c) => (runs.push([k, c.repeat, copy.get()]), copy.get())),
      extra: {
        keep: {
          policy: {
            name: 'resample',
            decide: async (i) => (
              await i.sample!(),
              await i.sample!(),
              { keep: i.candidateSamples!.length === 3, reason: 'three samples' }
            ),
          },
        },
      },
    });
    await loop.run();
    expect(runs.sort((a, b) => a[0] - b[0] || a[1]! - b[1]!)).toEqual([
      [0, 0, 9],
      [0, 1, 9],
      [0, 2, 9],
      [1, 0, 8],
      [1, 1, 8],
      [1, 2, 8],
    ]);
    expect(results.rows.slice(1).map((r) => r.status)).toEqual(['reverted', 'kept']);
  });

  it(
    'parallel options are validated at createLoop: concurrency above ' +
      'candidates is CONFIG_INVALID; repairs and seed-only detection are ' +
      'accepted',
    () => {
      const attempt = (parallel: Record<string, unknown>, extra: Partial<LoopOptions> = {}) => {
        try {
          setup({ candidates: 2, propose: (v) => v, parallel: parallel as never, extra });
          return undefined;
        } catch (error) {
          return isLoopError(error, 'CONFIG_INVALID') ? error.message : String(error);
        }
      };
      expect(attempt({ concurrency: 3 })).toMatch(/concurrency must be at most candidates/);
      expect(attempt({}, { recovery: { maxRepairAttempts: 2 } })).toBeUndefined();
      expect(attempt({}, { keep: { seedOnlyDetector: { name: 'x', isSeedOnlyChange: () => false } } })).toBeUndefined();
      expect(attempt({ remeasureIncumbent: 1 })).toBeUndefined();
    },
  );
});
