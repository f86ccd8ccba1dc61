import { describe, expect, it } from 'vitest';
import { createCounterProposer, createFakeHarness } from '@loop/internal-test-utils';
import { isLoopError } from '../contracts/errors.js';
import type { IterationRecord } from '../contracts/iteration-record.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import type { EditPlan, Proposer } from '../contracts/proposer.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog, type ResultsLog } from '../contracts/results-log.js';
import type { EngineState, StateStore } from '../contracts/state-store.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { advanceCounters, countersOf, emptyCounters } from './counters.js';
import { createLoop } from './create-loop.js';
import type { LoopOptions } from './options.js';
import { base } from './test-fixtures/seams-base.js';

describe('the plan seam', () => {
  it(
    'Proposer.plan runs before the checkpoint, the checkpoint receives the ' +
      'plan and propose sees it as context.plan',
    async () => {
      const { artifact, rollback } = base();
      const order: string[] = [];
      const plan: EditPlan = { description: 'bump', files: ['x'], slug: 'bump' };
      const proposer: Proposer = {
        name: 'planned',
        plan: () => (order.push('plan'), plan),
        propose: (c) => (
          order.push(`propose:${c.plan?.slug}`),
          artifact.set(artifact.get() + 1),
          { description: 'bump' }
        ),
      };
      const seen: (EditPlan | undefined)[] = [];
      await createLoop({
        artifact,
        proposer,
        scorer: createValueScorer('minimize'),
        harness: createFakeHarness({ scores: [10, 9] }),
        stop: maxIterations(1),
        rollback: {
          ...rollback,
          checkpoint: (i, p) => (order.push(`checkpoint:${i}`), seen.push(p), rollback.checkpoint(i)),
        },
      }).run();
      expect(order).toEqual(['checkpoint:0', 'plan', 'checkpoint:1', 'propose:bump']);
      expect(seen[1]).toBe(plan);
    },
  );

  it('a plan that throws is a crash row and nothing is checkpointed or evaluated', async () => {
    const { artifact, rollback } = base();
    const harness = createFakeHarness({ scores: [10] });
    const results = createMemoryResultsLog();
    const proposer: Proposer = {
      name: 'p',
      plan: () => {
        throw new Error('no idea');
      },
      propose: () => ({ description: 'never' }),
    };
    await createLoop({
      artifact,
      rollback,
      proposer,
      results,
      scorer: createValueScorer('minimize'),
      harness,
      stop: maxIterations(1),
    }).run();
    expect(results.rows[1]).toMatchObject({
      status: 'crash',
      description: 'proposer failed: no idea',
      error: 'no idea',
    });
    expect(harness.runs).toEqual([0]);
  });
});

describe('advisors', () => {
  it(
    'advice is for the next proposal: none comes after the final iteration, ' +
      'and its hints reach that proposal only',
    async () => {
      const { artifact, rollback } = base();
      const hintsSeen: string[][] = [];
      const proposer: Proposer = {
        name: 'p',
        propose: (c) => (hintsSeen.push([...c.hints]), artifact.set(artifact.get() + 1), { description: 'up' }),
      };
      const loop = createLoop({
        artifact,
        rollback,
        proposer,
        scorer: createValueScorer('minimize'),
        harness: createFakeHarness({ scores: [1, 2, 3, 4] }),
        stop: maxIterations(3),
        advisors: [
          {
            name: 'always',
            advise: (s) =>
              s.iteration === 2 ? [{ kind: 'cooldown', message: 'cool down', hints: ['try something else'] }] : [],
          },
        ],
      });
      const advised: number[] = [];
      loop.on('advice', (e) => advised.push(e.iteration));
      await loop.run();
      expect(hintsSeen).toEqual([[], [], ['try something else']]);
      expect(advised).toEqual([2]);
    },
  );

  it('no advice event after the last iteration, even when the advisor has some', async () => {
    const { artifact, rollback } = base();
    const loop = createLoop({
      artifact,
      rollback,
      proposer: createCounterProposer(artifact),
      scorer: createValueScorer('minimize'),
      harness: createFakeHarness({ scores: [1, 2, 3] }),
      stop: maxIterations(2),
      advisors: [{ name: 'always', advise: () => [{ kind: 'cooldown', message: 'cool down', hints: [] }] }],
    });
    const advised: number[] = [];
    loop.on('advice', (e) => advised.push(e.iteration));
    await loop.run();
    expect(advised).toEqual([1]);
  });
});

describe('the options schema', () => {
  it(
    'createLoop validates every option with zod and names the field: a ' +
      'scorer without score, a negative maxRepairAttempts, an unknown option',
    () => {
      const message = (extra: Record<string, unknown>) => {
        try {
          createLoop({ ...base(), harness: createFakeHarness({ scores: [1] }), ...extra } as LoopOptions);
          return '';
        } catch (error) {
          return isLoopError(error, 'CONFIG_INVALID') ? error.message : String(error);
        }
      };
      expect(message({ scorer: { name: 's', direction: 'minimize' } })).toMatch(/scorer/);
      expect(message({ maxRepairAttempts: -1 })).toMatch(/maxRepairAttempts/);
      expect(message({ maxIteratons: 3 })).toMatch(/maxIteratons/);
      expect(
        message({ statePath: '/tmp/a', stateStore: { name: 'x', read: () => undefined, write: () => {} } }),
      ).toMatch(/statePath or stateStore/);
      expect(message({})).toBe('');
    },
  );
});

describe('resume', () => {
  it(
    'a log that rounds scores resumes with the full-precision best from the ' +
      'state store, so decisions equal an uninterrupted run (6, 7.004, 7.003 ' +
      'maximize)',
    async () => {
      const rows: IterationRecord[] = [];
      const round = (r: IterationRecord) => ({ ...r, score: r.score === null ? null : Number(r.score.toFixed(2)) });
      const log: ResultsLog = {
        name: 'two-decimals',
        decimals: 2,
        append: (r) => void rows.push(round(r)),
        read: () => [...rows],
      };
      const saved: EngineState[] = [];
      const store: StateStore = { name: 'mem', read: () => saved.at(-1), write: (s) => void saved.push(s) };
      const artifact = createMemoryArtifact(0);
      const rollback = createMemoryRollback(artifact);
      const make = (scores: number[], n: number) => {
        return createLoop({
          artifact,
          rollback,
          proposer: createCounterProposer(artifact),
          results: log,
          stateStore: store,
          scorer: createValueScorer('maximize'),
          harness: createFakeHarness({ scores }),
          stop: maxIterations(n),
        });
      };
      await make([6, 7.004], 1).run();
      const summary = await make([7.003], 2).run();
      expect(rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted']);
      expect(summary.best).toBe(7.004);
    },
  );
});

describe('counters', () => {
  it(
    'are kept incrementally and equal the fold of the whole history (a ' +
      'resumed loop has the counters of an uninterrupted one)',
    () => {
      const rows: IterationRecord[] = [
        { iteration: 0, candidateId: 'a', score: 10, status: 'baseline', description: 'b' },
        { iteration: 1, candidateId: '', score: null, status: 'crash', description: 'x (crash: boom)', error: 'boom' },
        { iteration: 2, candidateId: '', score: null, status: 'crash', description: 'y (crash: boom)', error: 'boom' },
        { iteration: 3, candidateId: 'c', score: 8, status: 'kept', description: 'k', changedFiles: ['f'] },
        { iteration: 4, candidateId: '', score: 9, status: 'reverted', description: 'r', changedFiles: [] },
      ];
      const c = emptyCounters();
      let best = Number.NaN;
      for (const r of rows) {
        if (r.status === 'baseline' || r.status === 'kept') best = r.score as number;
        advanceCounters(c, r, best);
      }
      expect(countersOf(rows)).toEqual(c);
      expect(c.counts).toEqual({ kept: 1, reverted: 1, rejected: 0, crash: 2, halted: 0 });
      expect(c.bestTrail).toEqual([10, 10, 10, 8, 8]);
      expect(c.consecutiveNoChange).toBe(1);
      expect(countersOf(rows.slice(0, 3)).consecutiveSameError).toBe(2);
    },
  );
});
