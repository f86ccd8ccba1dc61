import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCounterProposer, createFakeHarness } from '@loop/internal-test-utils';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { createLoop } from './create-loop.js';
import { maxIterations } from '../contracts/stop-policy.js';
import type { RollbackStrategy } from '../contracts/rollback-strategy.js';
import type { IterationRecord } from '../contracts/iteration-record.js';
import { setup } from './test-fixtures/loop-setup.js';

describe('createLoop: rows, state, resume and lock', () => {
  it('appends the results row before rolling back', async () => {
    const artifact = createMemoryArtifact(0);
    const order: string[] = [];
    const memory = createMemoryRollback(artifact);
    const rollback: RollbackStrategy = {
      ...memory,
      revert: (cp, info) => (order.push('revert'), memory.revert(cp, info)),
    };
    const results = createMemoryResultsLog();
    const loop = createLoop({
      artifact,
      rollback,
      results: { ...results, append: (r) => (order.push(`append ${r.status}`), results.append(r)) },
      proposer: createCounterProposer(artifact),
      harness: createFakeHarness({ scores: [10, 11, { crash: 'timeout' }] }),
      scorer: createValueScorer('minimize'),
      stop: maxIterations(2),
    });
    await loop.run();
    expect(order).toEqual(['append baseline', 'append reverted', 'revert', 'append crash', 'revert']);
  });

  it(
    'resumes from the results log without re-running the baseline; the ' +
      "summary counts all iterations and, apart, this run's",
    async () => {
      const first = setup([10, 9, 11]);
      await first.loop.run();
      const artifact = createMemoryArtifact(1);
      const harness = createFakeHarness({ scores: [8] });
      const loop = createLoop({
        artifact,
        rollback: { ...createMemoryRollback(artifact), recover: () => {} },
        results: first.results,
        harness,
        proposer: createCounterProposer(artifact),
        scorer: createValueScorer('minimize'),
        stop: maxIterations(3),
      });
      const events: string[] = [];
      loop.on('resumed', (e) => events.push(`resumed at ${e.iteration}, best ${e.best}`));
      const summary = await loop.run();
      expect(events).toEqual(['resumed at 2, best 9']);
      expect(harness.runs).toEqual([3]); // no baseline run
      expect(first.results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted', 'kept']);
      expect(summary).toMatchObject({ baseline: 10, best: 8, iterations: 3, iterationsThisRun: 1 });
    },
  );

  it(
    "a resume keeps the state store's whole id of the incumbent where the log abbreviates it " +
      '(results.tsv: 7 characters of the commit), and recovers to it',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'loop-resume-id-'));
      try {
        const statePath = join(dir, 'state.json');
        const whole = (id: string) => `${id}-0123456789abcdef0123456789abcdef`;
        const inner = (id: string) => id.split('-')[0]!;
        const results = createMemoryResultsLog();
        const abbreviating = {
          ...results,
          append: (r: IterationRecord) => results.append({ ...r, candidateId: r.candidateId.slice(0, 7) }),
        };
        const run = (scores: number[], stop: number, recovered?: string[]) => {
          const artifact = createMemoryArtifact(0);
          const memory = createMemoryRollback(artifact);
          const rollback: RollbackStrategy = {
            ...memory,
            commit: async (...args) => whole(await memory.commit!(...args)),
            keep: async (cp, candidateId) => whole(await memory.keep(cp, candidateId && inner(candidateId))),
            restoreBest: (id) => memory.restoreBest!(inner(id)),
            recover: (id) => void recovered?.push(id),
          };
          return createLoop({
            artifact,
            rollback,
            results: abbreviating,
            harness: createFakeHarness({ scores }),
            proposer: createCounterProposer(artifact),
            scorer: createValueScorer('minimize'),
            files: { statePath },
            stop: maxIterations(stop),
          });
        };
        await run([10, 9, 11], 2).run();
        expect(results.rows[1]?.candidateId).toBe('v1-0123');
        const recovered: string[] = [];
        const resumed = run([12], 3, recovered);
        const bestIds: string[] = [];
        resumed.on('resumed', (e) => bestIds.push(e.bestId));
        await resumed.run();
        expect(bestIds).toEqual([whole('v1')]);
        expect(recovered).toEqual([whole('v1')]);
        expect(JSON.parse(await readFile(statePath, 'utf8'))).toMatchObject({ bestId: whole('v1'), iteration: 3 });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('refuses to resume when results were deleted or their baseline row removed (RESUME_MISMATCH)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loop-resume-'));
    try {
      const statePath = join(dir, 'state.json');
      const first = setup([10, 9, 11], { files: { statePath } });
      await first.loop.run();
      const again = (rows: typeof first.results.rows) => {
        const artifact = createMemoryArtifact(0);
        return createLoop({
          artifact,
          rollback: { ...createMemoryRollback(artifact), recover: () => {} },
          results: createMemoryResultsLog(rows),
          harness: createFakeHarness({ scores: [1, 1, 1] }),
          proposer: createCounterProposer(artifact),
          scorer: createValueScorer('minimize'),
          files: { statePath },
          stop: maxIterations(4),
        }).run();
      };
      await expect(again([])).rejects.toMatchObject({ code: 'RESUME_MISMATCH' });
      const withoutBaseline = first.results.rows
        .slice(1)
        .map((r, i) => ({ ...r, iteration: i, status: i === 0 ? ('baseline' as const) : r.status }));
      await expect(again(withoutBaseline)).rejects.toMatchObject({ code: 'RESUME_MISMATCH' });
      await expect(again(first.results.rows)).resolves.toMatchObject({ iterations: 4 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('writes state.json as the last write of each iteration and marks the stop', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loop-state-'));
    try {
      const statePath = join(dir, '.loop', 'state.json');
      const { loop } = setup([10, 9, 11], { files: { statePath } });
      await loop.run();
      const state = JSON.parse(await readFile(statePath, 'utf8'));
      expect(state).toMatchObject({
        status: 'stopped',
        iteration: 2,
        best: 9,
        baseline: 10,
        stopReason: 'max-iterations',
        counts: { kept: 1, reverted: 1 },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to run when another loop holds the workspace lock (LOCK_HELD)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loop-lock-'));
    try {
      const lockPath = join(dir, '.loop', 'workspace');
      let release!: () => void;
      const blocker = new Promise<number>((resolve) => (release = () => resolve(1)));
      const a = setup([10], {
        files: { lockPath },
        harness: createFakeHarness({ score: () => 10 }),
        stop: maxIterations(0),
      });
      const slow = createLoop({
        artifact: a.artifact,
        rollback: a.rollback,
        proposer: createCounterProposer(a.artifact),
        scorer: createValueScorer('minimize'),
        harness: {
          name: 'slow',
          run: async () => ({ exitCode: 0, signal: null, timedOut: false, durationMs: 1, value: await blocker }),
        },
        files: { lockPath },
        stop: maxIterations(0),
      });
      const started = new Promise((resolve) => slow.on('iteration-started', resolve)); // the lock is held by then
      const running = slow.run();
      await started;
      await expect(a.loop.run()).rejects.toMatchObject({ code: 'LOCK_HELD' });
      release();
      await running;
      await expect(a.loop.run()).resolves.toBeDefined(); // released after the first loop stopped
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
