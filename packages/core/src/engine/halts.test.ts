import { describe, expect, it } from 'vitest';
import { createCounterProposer, createFakeHarness } from '@loop/internal-test-utils';
import { LoopError, isLoopError } from '../contracts/errors.js';
import type { Harness } from '../contracts/harness.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog, type ResultsLog } from '../contracts/results-log.js';
import type { EngineState, StateStore } from '../contracts/state-store.js';
import { maxIterations } from '../contracts/stop-policy.js';
import type { LoopSummary } from '../contracts/summary.js';
import { createLoop } from './create-loop.js';

function setup(options: { failRevertAt?: number; failRestoreBest?: boolean; results?: ResultsLog; harness?: Harness }) {
  const order: string[] = [];
  const artifact = createMemoryArtifact(0);
  const memory = createMemoryRollback(artifact);
  const writes: EngineState[] = [];
  const store: StateStore = {
    name: 'rec',
    read: () => writes.at(-1),
    write: (s) => void (writes.push(s), order.push(`state:${s.status}`)),
  };
  const results = options.results ?? createMemoryResultsLog();
  const loop = createLoop({
    artifact,
    rollback: {
      ...memory,
      revert: (cp, info) => {
        order.push(`revert:${info.iteration}`);
        if (info.iteration === options.failRevertAt) throw new LoopError('RESTORE_FAILED', 'cp -p failed: disk full');
        return memory.revert(cp, info);
      },
      restoreBest: (id) => {
        order.push('restoreBest');
        if (options.failRestoreBest) throw new LoopError('RESTORE_FAILED', 'kept snapshot unreadable');
        return memory.restoreBest!(id);
      },
    },
    results,
    harness: options.harness ?? createFakeHarness({ scores: [10, 9, 11, 8] }),
    proposer: createCounterProposer(artifact),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(3),
    stateStore: store,
  });
  return { loop, results, order, writes };
}

async function failure(run: Promise<unknown>): Promise<LoopError> {
  try {
    await run;
  } catch (error) {
    if (isLoopError(error)) return error;
    throw error;
  }
  throw new Error('run() did not throw');
}

describe('halts that are errors run the stop sequence, then throw', () => {
  it(
    'a failed revert amends its row to the halted restore-failed row, still ' +
      'attempts restoreBest, writes the state last (failed), and throws ' +
      'RESTORE_FAILED carrying the summary (seed 002)',
    async () => {
      const { loop, results, order, writes } = setup({ failRevertAt: 2 });
      const error = await failure(loop.run());
      expect(error.code).toBe('RESTORE_FAILED');
      expect(results.read()).toHaveLength(3);
      const rows = await results.read();
      expect(rows[2]).toMatchObject({ iteration: 2, status: 'halted', label: 'restore-failed', score: 11 });
      expect(order.slice(-3)).toEqual(['revert:2', 'restoreBest', 'state:failed']);
      expect(writes.at(-1)).toMatchObject({
        status: 'failed',
        stopReason: 'restore-failed',
        halted: { status: 'restore-failed', code: 'RESTORE_FAILED' },
      });
      const summary = error.details.summary as LoopSummary;
      expect(summary.stop.reason).toBe('restore-failed');
      expect(summary.counts.halted).toBe(1);
    },
  );

  it(
    'without amendLast a failed revert adds no row: row n stays iteration n, ' +
      'the halt is in the state, the summary and a halted event (issue 32)',
    async () => {
      const memory = createMemoryResultsLog();
      const log: ResultsLog = { name: 'append-only', append: memory.append, read: memory.read };
      const { loop, writes } = setup({ failRevertAt: 2, results: log });
      const halted: string[] = [];
      loop.on('halted', (e) => halted.push(`${e.record.iteration}:${e.status}`));
      const error = await failure(loop.run());
      expect(memory.rows.map((r) => [r.iteration, r.status])).toEqual([
        [0, 'baseline'],
        [1, 'kept'],
        [2, 'reverted'],
      ]);
      expect(halted).toEqual(['2:restore-failed']);
      expect(writes.at(-1)).toMatchObject({ iteration: 2, status: 'failed', halted: { status: 'restore-failed' } });
      expect((error.details.summary as LoopSummary).halted).toMatchObject({
        status: 'restore-failed',
        code: 'RESTORE_FAILED',
      });
    },
  );

  it(
    'a restoreBest that fails at stop is restore-failed too: the state is ' +
      'still written last and the error carries the summary',
    async () => {
      const { loop, order } = setup({ failRestoreBest: true });
      const error = await failure(loop.run());
      expect(error.code).toBe('RESTORE_FAILED');
      expect(order.slice(-2)).toEqual(['restoreBest', 'state:failed']);
      expect((error.details.summary as LoopSummary).halted).toMatchObject({ status: 'restore-failed' });
    },
  );

  it(
    'a tampered harness mid-run is a halted harness-tampered row, the ' +
      'candidate rolled back, the stop sequence run, then HARNESS_TAMPERED',
    async () => {
      let fp = 'a';
      const inner = createFakeHarness({ scores: [10, 9, 8, 7] });
      const harness: Harness = {
        ...inner,
        fingerprint: () => fp,
        run: (c) => (c.iteration === 1 && (fp = 'b'), inner.run(c)),
      };
      const { loop, results, order } = setup({ harness });
      const error = await failure(loop.run());
      expect(error.code).toBe('HARNESS_TAMPERED');
      const rows = await results.read();
      expect(rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'halted']);
      expect(rows[2]!.label).toBe('harness-tampered');
      expect(order.slice(-3)).toEqual(['revert:2', 'restoreBest', 'state:failed']);
    },
  );
});
