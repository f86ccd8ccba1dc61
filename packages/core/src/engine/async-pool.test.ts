import { describe, expect, it } from 'vitest';
import { createContextProposer, createDeferred, type Deferred } from '@loop/internal-test-utils';
import { createFunctionHarness } from '../harness/function-harness.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createMemoryWorkingCopies } from '../artifacts/memory-working-copies.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { anyOf, maxIterations, targetScore } from '../contracts/stop-policy.js';
import type { StopPolicy } from '../contracts/stop-policy.js';
import { createLoop } from './create-loop.js';
import type { ProposalContext } from '../contracts/proposer.js';
import type { Clock } from '../contracts/types.js';

/**
 * A loop over a number (minimize) with an async pool of `width` memory copies. Candidate n proposes
 * `values[n - 1]`; its run resolves when `gates[n]` does (immediately when there is none).
 */
function setup(
  values: number[],
  options: { width?: number; gates?: Record<number, Deferred<void>>; stop?: StopPolicy; clock?: Clock } = {},
) {
  const artifact = createMemoryArtifact(10);
  const results = createMemoryResultsLog();
  const started: number[] = [];
  const aborted: number[] = [];
  const contexts: ProposalContext[] = [];
  const workingCopies = createMemoryWorkingCopies(artifact, (copy, { iteration }) =>
    createFunctionHarness('value', async ({ signal }) => {
      started.push(iteration);
      const gate = options.gates?.[iteration];
      if (gate) {
        await Promise.race([
          gate.promise,
          new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })),
        ]);
        if (signal.aborted) aborted.push(iteration);
      }
      return copy.get();
    }),
  );
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    results,
    proposer: createContextProposer<number>((_v, c) => {
      contexts.push(c);
      return values[c.iteration - 1]!;
    }),
    harness: createFunctionHarness('value', () => artifact.get()),
    scorer: createValueScorer('minimize'),
    stop: options.stop ?? maxIterations(values.length),
    parallel: { candidates: options.width ?? 2, workingCopies, schedule: 'async' },
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { artifact, results, loop, started, aborted, contexts };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the async schedule of parallel candidates (issue 27: no idle core)', () => {
  it('a freed slot starts the next candidate at once, while an earlier slow one still runs', async () => {
    const slow = createDeferred();
    const { loop, started, results } = setup([5, 9, 8, 7], { gates: { 1: slow } });
    const done = loop.run();
    for (let i = 0; i < 50 && !started.includes(4); i++) await tick();
    // Iterations 2, 3 and 4 ran one after another in the second slot while iteration 1 waited.
    expect(started).toEqual([1, 2, 3, 4]);
    expect(results.rows).toHaveLength(1); // only the baseline: rows wait for iteration 1
    slow.resolve();
    await done;
    expect(results.rows.map((r) => [r.iteration, r.status])).toEqual([
      [0, 'baseline'],
      [1, 'kept'],
      [2, 'reverted'],
      [3, 'reverted'],
      [4, 'reverted'],
    ]);
  });

  it('the proposer sees the candidates whose run ended before their row (ProposalContext.finished)', async () => {
    const slow = createDeferred();
    const { loop, contexts } = setup([5, 9, 8, 7], { gates: { 1: slow } });
    const done = loop.run();
    for (let i = 0; i < 50 && contexts.length < 4; i++) await tick();
    // Iteration 4 was proposed after 2 and 3 ended, while 1 still ran: no row but the baseline yet.
    const fourth = contexts.find((c) => c.iteration === 4)!;
    expect(fourth.history.map((r) => r.iteration)).toEqual([0]);
    expect(fourth.finished!.map((r) => [r.iteration, r.score, r.status])).toEqual([
      [2, 9, 'kept'],
      [3, 8, 'kept'],
    ]); // as evaluated against the baseline (10); their rows say reverted once 1 (5) is kept

    expect(contexts.find((c) => c.iteration === 2)!.finished).toEqual([]);
    slow.resolve();
    await done;
  });

  it('a host that calls step() once leaves only the candidates in flight: no run ahead after it returns', async () => {
    const values = [5, 9, 8, 7, 6, 4, 3, 2];
    const { loop, started, results } = setup(values);
    await loop.step();
    const rows = results.rows.length;
    for (let i = 0; i < 50; i++) await tick(); // the candidates started during the step run
    const afterward = started.length;
    for (let i = 0; i < 50; i++) await tick();
    expect(started.length).toBe(afterward); // nothing starts while no step is awaited
    expect(afterward).toBeLessThan(values.length); // not the whole budget in the background
    await loop.step();
    expect(results.rows.length).toBe(rows + 1);
  });

  it(
    "a host's ask() after a step records the candidates in flight first: every candidate gets its row " +
      'and the trial the next iteration',
    async () => {
      const slow = createDeferred();
      const { loop, artifact, results, started } = setup([5, 9, 8, 7, 6, 4], { gates: { 2: slow } });
      await loop.step(); // row 1; iteration 2 still runs, and 3 started in the slot 1 freed
      for (let i = 0; i < 20; i++) await tick();
      const inFlight = started.filter((n) => n > 1).length;
      expect(inFlight).toBeGreaterThan(0);
      const asking = loop.ask();
      for (let i = 0; i < 20; i++) await tick();
      slow.resolve();
      const trial = await asking;
      expect(trial.iteration).toBe(2 + inFlight); // after the rows of the ones in flight
      expect(started.length).toBe(1 + inFlight); // none started for the drain
      artifact.set(1);
      await loop.tell(trial, { description: 'host edit' });
      await loop.step();
      const rows = results.rows.map((r) => [r.iteration, r.description]);
      expect(rows.map(([n]) => n)).toEqual([...Array(rows.length).keys()]); // row n is iteration n
      expect(rows).toContainEqual([2, 'value 10 -> 9']); // proposed with 1, from the baseline
      expect(rows).toContainEqual([trial.iteration, 'host edit']);
      await loop.stop();
    },
  );

  it("each candidate a step started has its copy before the step returns: a host's later edit is in none", async () => {
    const artifact = createMemoryArtifact(10);
    const seen: number[] = [];
    const copies = createMemoryWorkingCopies(artifact, (copy) => createFunctionHarness('value', () => copy.get()));
    // A copy takes time to make, as a directory copy does.
    const slowCopies = {
      ...copies,
      create: async (iteration: number, k: number) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return copies.create(iteration, k);
      },
    };
    const loop = createLoop({
      artifact,
      rollback: createMemoryRollback(artifact),
      results: createMemoryResultsLog(),
      proposer: createContextProposer<number>((value, c) => (seen.push(value), 20 + c.iteration)),
      harness: createFunctionHarness('value', () => artifact.get()),
      scorer: createValueScorer('minimize'),
      stop: maxIterations(6),
      parallel: { candidates: 2, workingCopies: slowCopies, schedule: 'async' },
    });
    await loop.step();
    artifact.set(999); // the host's edit of the main workspace (MCP: an agent's, or a held edit written back)
    const trial = await loop.ask(); // records the candidates in flight
    expect(seen.length).toBeGreaterThan(1);
    expect(seen).not.toContain(999);
    await loop.tell(trial, { description: 'host edit' });
    await loop.stop();
  });

  it("a row's duration ends when its candidate was decided, not after the wait for the rows before it", async () => {
    const slow = createDeferred();
    let now = 0;
    const { loop, contexts, results } = setup([5, 9], { gates: { 1: slow }, clock: { now: () => now } });
    const durations = new Map<number, number>();
    loop.on('reverted', (ev) => durations.set(ev.record.iteration, ev.durationMs));
    loop.on('kept', (ev) => durations.set(ev.record.iteration, ev.durationMs));
    const done = loop.run();
    for (let i = 0; i < 50 && contexts.length < 2; i++) await tick();
    for (let i = 0; i < 20; i++) await tick(); // iteration 2 ends at time 0, its row waits for 1
    now = 60_000;
    slow.resolve();
    await done;
    expect(results.rows.map((r) => r.iteration)).toEqual([0, 1, 2]);
    expect(durations.get(1)).toBe(60_000);
    expect(durations.get(2)).toBe(0);
  });

  it(
    'rows go in iteration order and a candidate decided against an older ' +
      'incumbent is kept only if it beats the one kept meanwhile',
    async () => {
      const slow = createDeferred();
      const { loop, results, artifact } = setup([5, 7], { gates: { 1: slow } });
      const done = loop.run();
      for (let i = 0; i < 50 && results.rows.length === 0; i++) await tick();
      await tick();
      slow.resolve();
      await done;
      // 7 passed against the baseline (10) but 5 was kept first: 7 is not kept.
      expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted']);
      expect(results.rows[2]?.description).toBe('value 10 -> 7 (not better than the incumbent kept meanwhile)');
      expect(artifact.get()).toBe(5);

      const again = setup([7, 5], { gates: { 1: createDeferredResolvedLater() } });
      await again.loop.run();
      expect(again.results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'kept']);
      expect(again.artifact.get()).toBe(5);
    },
  );

  it(
    'no candidate starts beyond maxIterations, and at the stop the ones in ' + 'flight are abandoned without a row',
    async () => {
      const { loop, started } = setup([9, 8, 7, 6, 5, 4], { width: 3 });
      await loop.run();
      expect([...started].sort()).toEqual([1, 2, 3, 4, 5, 6]);

      const never = createDeferred();
      const stopping = setup([5, 9], { gates: { 2: never }, stop: anyOf(maxIterations(10), targetScore(5)) });
      const summary = await stopping.loop.run();
      expect(summary.stop.reason).toBe('target-reached');
      expect(stopping.results.rows.map((r) => r.iteration)).toEqual([0, 1]);
      expect(stopping.aborted).toContain(2);
      expect(stopping.artifact.get()).toBe(5);
    },
  );

  it('remeasureIncumbent with the async schedule is a CONFIG_INVALID naming the field', () => {
    const artifact = createMemoryArtifact(10);
    expect(() =>
      createLoop({
        artifact,
        rollback: createMemoryRollback(artifact),
        harness: createFunctionHarness('v', () => 1),
        scorer: createValueScorer('minimize'),
        parallel: {
          candidates: 2,
          workingCopies: createMemoryWorkingCopies(artifact, () => createFunctionHarness('v', () => 1)),
          schedule: 'async',
          remeasureIncumbent: 2,
        },
      }),
    ).toThrow(/parallel\.remeasureIncumbent: remeasureIncumbent needs schedule "batch"/);
  });
});

/** A gate that opens a few event-loop turns later (iteration 2 then ends first). */
function createDeferredResolvedLater(): Deferred<void> {
  const d = createDeferred();
  void (async () => {
    for (let i = 0; i < 20; i++) await tick();
    d.resolve();
  })();
  return d;
}
