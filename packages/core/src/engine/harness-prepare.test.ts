import { describe, expect, it } from 'vitest';
import { createFakeHarness } from '@loop/internal-test-utils';
import type { Harness } from '../contracts/harness.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { createLoop } from './create-loop.js';
import { base } from './test-fixtures/seams-base.js';

/** The fake harness with `prepare` and `run` logged into `order`. */
function loggedHarness(order: string[], scores: number[], prepare?: Harness['prepare']): Harness {
  const fake = createFakeHarness({ scores });
  return {
    ...fake,
    prepare: prepare ?? ((c) => void order.push(`prepare:${c.iteration}`)),
    run: (c) => (order.push(`run:${c.iteration}`), fake.run(c)),
  };
}

describe('Harness.prepare (issue 31)', () => {
  it('is called once per candidate, after the proposal and before the commit and the run', async () => {
    const { artifact, rollback, proposer, scorer } = base();
    const order: string[] = [];
    const results = createMemoryResultsLog();
    await createLoop({
      artifact,
      results,
      scorer,
      proposer: { ...proposer, propose: (c) => (order.push(`propose:${c.iteration}`), proposer.propose(c)) },
      harness: loggedHarness(order, [10, 9, 11]),
      stop: maxIterations(2),
      rollback: { ...rollback, commit: async (cp, info) => (order.push(`commit:${info.iteration}`), '') },
    }).run();
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted']);
    // The baseline has no proposal: nothing to overlap, no prepare.
    expect(order).toEqual([
      'run:0',
      'propose:1',
      'prepare:1',
      'commit:1',
      'run:1',
      'propose:2',
      'prepare:2',
      'commit:2',
      'run:2',
    ]);
  });

  it('a prepare that throws changes nothing: the candidate is run, scored and recorded', async () => {
    const { artifact, rollback, proposer, scorer } = base();
    const order: string[] = [];
    const harness = loggedHarness(order, [10, 9], () => {
      throw new Error('no cgroup here');
    });
    const results = createMemoryResultsLog();
    await createLoop({ artifact, rollback, proposer, scorer, harness, results, stop: maxIterations(1) }).run();
    expect(results.rows.map((r) => [r.status, r.score])).toEqual([
      ['baseline', 10],
      ['kept', 9],
    ]);
    expect(order).toEqual(['run:0', 'run:1']);
  });

  it('an async prepare that rejects changes nothing either: no unhandled rejection, the loop runs on', async () => {
    const { artifact, rollback, proposer, scorer } = base();
    const order: string[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const harness = loggedHarness(order, [10, 9, 8], (async () => {
        throw new Error('no cgroup here');
      }) as unknown as Harness['prepare']);
      const results = createMemoryResultsLog();
      await createLoop({ artifact, rollback, proposer, scorer, harness, results, stop: maxIterations(2) }).run();
      await new Promise((resolve) => setTimeout(resolve, 10)); // an unhandled rejection is reported after a turn
      expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'kept']);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
