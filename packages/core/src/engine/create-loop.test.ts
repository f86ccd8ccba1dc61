import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createCounterProposer,
  createFakeHarness,
  createManualClock,
  type FakeOutcome,
} from '@loop/internal-test-utils';
import type { LoopEvent } from '../contracts/events.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory.js';
import { createFunctionProposer } from '../contracts/proposer.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { createLoop } from './create-loop.js';
import type { LoopOptions } from './options.js';
import { anyOf, maxIterations, plateau, targetScore, wallClock } from '../contracts/stop-policy.js';
import type { RollbackStrategy } from '../contracts/rollback-strategy.js';
import type { Direction } from '../contracts/types.js';

function setup(scores: FakeOutcome[], extra: Partial<LoopOptions> = {}, direction: Direction = 'minimize') {
  const artifact = createMemoryArtifact(0);
  const rollback = createMemoryRollback(artifact);
  const results = createMemoryResultsLog();
  const harness = createFakeHarness({ scores });
  const loop = createLoop({
    artifact,
    rollback,
    results,
    harness,
    proposer: createCounterProposer(artifact),
    scorer: createValueScorer(direction),
    stop: maxIterations(scores.length - 1),
    ...extra,
  });
  return { artifact, rollback, results, harness, loop };
}

describe('createLoop', () => {
  it('runs the baseline first and records it as iteration 0', async () => {
    const { loop, results } = setup([10, 9]);
    await loop.run();
    expect(results.rows[0]).toMatchObject({ iteration: 0, status: 'baseline', score: 10, description: 'baseline' });
  });

  it('keeps a strict improvement and reverts an equal score (equal reverts)', async () => {
    const { loop, results, artifact } = setup([10, 9, 9]);
    const summary = await loop.run();
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted']);
    expect(summary.best).toBe(9);
    expect(artifact.get()).toBe(1); // the equal candidate (value 2) was rolled back
  });

  it('keeps improvements in the maximize direction', async () => {
    const { loop, results } = setup([0.5, 0.6, 0.4, 0.7], {}, 'maximize');
    await loop.run();
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted', 'kept']);
  });

  it('records a crash row and rolls the candidate back', async () => {
    const { loop, results, artifact } = setup([10, { crash: 'timeout' }, { crash: 'nan' }, { crash: 'no-metric' }]);
    const summary = await loop.run();
    expect(results.rows.slice(1).map((r) => r.status)).toEqual(['crash', 'crash', 'crash']);
    expect(results.rows[1]?.description).toMatch(/timed out/);
    expect(results.rows[2]?.description).toMatch(/not finite/);
    expect(artifact.get()).toBe(0);
    expect(summary.counts).toEqual({ kept: 0, reverted: 0, rejected: 0, crash: 3, halted: 0 });
  });

  it('returns a summary with counts, kept changes sorted by improvement and the stop reason', async () => {
    const { loop } = setup([10, 9.5, 7, 8, 6.5]);
    const summary = await loop.run();
    expect(summary).toMatchObject({
      baseline: 10,
      best: 6.5,
      iterations: 4,
      counts: { kept: 3, reverted: 1, rejected: 0, crash: 0 },
    });
    expect(summary.kept.map((k) => k.improvement)).toEqual([2.5, 0.5, 0.5]);
    expect(summary.kept[0]?.iteration).toBe(2);
    expect(summary.stop.reason).toBe('max-iterations');
  });

  it('stops on a plateau of consecutive non-improvements', async () => {
    const { loop, results } = setup([10, 11, 12, 9, 10, 10, 10, 1], { stop: plateau(3) });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('plateau');
    expect(results.rows).toHaveLength(7);
  });

  it('stops when the target score is reached', async () => {
    const { loop } = setup([10, 8, 5, 4, 1], { stop: targetScore(5) });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('target-reached');
    expect(summary.iterations).toBe(2);
  });

  it('stops when the wall-clock budget is used (injected clock)', async () => {
    const clock = createManualClock(1_000_000);
    const artifact = createMemoryArtifact(0);
    const loop = createLoop({
      artifact,
      rollback: createMemoryRollback(artifact),
      proposer: createCounterProposer(artifact),
      harness: createFakeHarness({ score: () => 5, onRun: () => clock.advance(60_000) }),
      scorer: createValueScorer('minimize'),
      stop: wallClock(5 * 60_000),
      clock,
    });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('wall-clock');
    expect(summary.iterations).toBe(4); // baseline + 4 runs of one minute each = 5 minutes
  });

  it('composes stop policies with anyOf: the first to fire wins', async () => {
    const { loop } = setup([10, 11, 11, 11, 11, 11], { stop: anyOf(maxIterations(10), plateau(2)) });
    expect((await loop.run()).stop.reason).toBe('plateau');
  });

  it('an abort stops the loop after restoring the last kept state', async () => {
    const controller = new AbortController();
    const artifact = createMemoryArtifact(0);
    const results = createMemoryResultsLog();
    let runs = 0;
    const loop = createLoop({
      artifact,
      results,
      rollback: createMemoryRollback(artifact),
      proposer: createCounterProposer(artifact),
      harness: createFakeHarness({
        score: () => {
          runs += 1;
          if (runs === 3) controller.abort(); // Ctrl-C during the second candidate's run
          return 10 - runs;
        },
      }),
      scorer: createValueScorer('minimize'),
      signal: controller.signal,
    });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('aborted');
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept']);
    expect(artifact.get()).toBe(1); // the in-flight candidate (2) was rolled back
  });

  it('a repair that throws leaves the crash row as it was and the loop goes on (it never ends the run)', async () => {
    const artifact = createMemoryArtifact(0);
    const results = createMemoryResultsLog();
    const proposer = createFunctionProposer(
      'broken',
      ({ iteration }) => {
        artifact.set(iteration === 1 ? -1 : 3);
        return { description: `try ${iteration}` };
      },
      () => {
        throw new Error('agent exited 1');
      },
    );
    const loop = createLoop({
      artifact,
      results,
      proposer,
      rollback: createMemoryRollback(artifact),
      harness: createFakeHarness({ score: () => (artifact.get() < 0 ? { crash: 'exit-code' } : 10 - artifact.get()) }),
      scorer: createValueScorer('minimize'),
      stop: maxIterations(2),
      recovery: { maxRepairAttempts: 2 },
    });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('max-iterations');
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'crash', 'kept']);
    expect(results.rows[1]?.description).toMatch(/^try 1 \(crash: .*; repair 1 failed: agent exited 1\)$/);
  });

  it('a repair attempt fixes a crash within the same iteration', async () => {
    const artifact = createMemoryArtifact(0);
    const results = createMemoryResultsLog();
    const proposer = createFunctionProposer(
      'typo',
      () => {
        artifact.set(-1); // a broken candidate
        return { description: 'try 5' };
      },
      ({ crash }) => {
        expect(crash?.message).toMatch(/exited with code 1/);
        artifact.set(5);
        return { description: 'fix typo' };
      },
    );
    const loop = createLoop({
      artifact,
      results,
      proposer,
      rollback: createMemoryRollback(artifact),
      harness: createFakeHarness({ score: () => (artifact.get() < 0 ? { crash: 'exit-code' } : 10 - artifact.get()) }),
      scorer: createValueScorer('minimize'),
      stop: maxIterations(1),
      recovery: { maxRepairAttempts: 2 },
    });
    await loop.run();
    expect(results.rows).toHaveLength(2);
    expect(results.rows[1]).toMatchObject({
      iteration: 1,
      status: 'kept',
      score: 5,
      description: 'try 5; repair 1: fix typo',
    });
  });

  it('gives up after the maximum number of repair attempts and records one crash row', async () => {
    const artifact = createMemoryArtifact(0);
    const results = createMemoryResultsLog();
    let repairs = 0;
    const loop = createLoop({
      artifact,
      results,
      rollback: createMemoryRollback(artifact),
      proposer: createFunctionProposer(
        'broken',
        () => (artifact.set(-1), { description: 'bad' }),
        () => {
          repairs += 1;
          artifact.set(-1 - repairs);
          return { description: `repair ${repairs}` };
        },
      ),
      harness: createFakeHarness({ score: () => (artifact.get() < 0 ? { crash: 'exit-code' } : 10) }),
      scorer: createValueScorer('minimize'),
      stop: maxIterations(1),
      recovery: { maxRepairAttempts: 2 },
    });
    await loop.run();
    expect(repairs).toBe(2);
    expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'crash']);
    expect(artifact.get()).toBe(0);
  });

  it('rejects a change outside the mutable paths without evaluating it, saying it is outside the targets', async () => {
    const artifact = { ...createMemoryArtifact(0), mutable: ['nothing'] };
    const inner = createMemoryArtifact(0);
    const loopArtifact = { ...artifact, inspect: inner.inspect };
    const harness = createFakeHarness({ scores: [10] });
    const results = createMemoryResultsLog();
    const loop = createLoop({
      artifact: loopArtifact,
      results,
      rollback: createMemoryRollback(inner),
      proposer: createCounterProposer(inner),
      harness,
      scorer: createValueScorer('minimize'),
      stop: maxIterations(1),
    });
    await loop.run();
    expect(results.rows[1]).toMatchObject({ status: 'rejected', score: null });
    expect(results.rows[1]?.description).toMatch(/changed outside the targets value/);
    expect(harness.runs).toEqual([0]);
    expect(inner.get()).toBe(0);
  });

  it('does not evaluate a proposal that changed nothing', async () => {
    const artifact = createMemoryArtifact(0);
    const harness = createFakeHarness({ scores: [10] });
    const results = createMemoryResultsLog();
    const loop = createLoop({
      artifact,
      results,
      rollback: createMemoryRollback(artifact),
      proposer: createFunctionProposer('noop', () => ({ description: 'nothing' })),
      harness,
      scorer: createValueScorer('minimize'),
      stop: maxIterations(1),
    });
    await loop.run();
    expect(results.rows[1]).toMatchObject({ status: 'reverted', description: 'nothing (no change: not evaluated)' });
    expect(harness.runs).toEqual([0]);
  });

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

  it("resumes from the results log without re-running the baseline; the summary counts all iterations and, apart, this run's", async () => {
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
  });

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

  it('fails with BASELINE_FAILED when the baseline crashes, writing no row', async () => {
    const { loop, results } = setup([{ crash: 'no-metric' }, 1]);
    await expect(loop.run()).rejects.toMatchObject({ code: 'BASELINE_FAILED' });
    expect(results.rows).toHaveLength(0);
  });

  it('halts with HARNESS_TAMPERED when the harness fingerprint changes, rolling back the candidate', async () => {
    const artifact = createMemoryArtifact(0);
    let print = 'a';
    const loop = createLoop({
      artifact,
      rollback: createMemoryRollback(artifact),
      proposer: createFunctionProposer('tamper', () => {
        artifact.set(1);
        print = 'b';
        return { description: 'edit the evaluation' };
      }),
      harness: createFakeHarness({ score: () => 1, fingerprint: () => print }),
      scorer: createValueScorer('minimize'),
    });
    await expect(loop.run()).rejects.toMatchObject({ code: 'HARNESS_TAMPERED' });
    expect(artifact.get()).toBe(0);
  });

  it('an unexpected harness error rolls the candidate back before it propagates', async () => {
    const artifact = createMemoryArtifact(0);
    let runs = 0;
    const loop = createLoop({
      artifact,
      rollback: createMemoryRollback(artifact),
      proposer: createCounterProposer(artifact),
      harness: {
        name: 'broken',
        run: () => {
          runs += 1;
          if (runs === 2) throw new Error('log file cannot be opened');
          return { exitCode: 0, signal: null, timedOut: false, durationMs: 1, value: 10 };
        },
      },
      scorer: createValueScorer('minimize'),
    });
    await expect(loop.run()).rejects.toThrow('log file cannot be opened');
    expect(artifact.get()).toBe(0);
  });

  it('emits typed events in order to listeners and async iterators', async () => {
    const { loop } = setup([10, 9, 11, { crash: 'exit-code' }]);
    const seen: LoopEvent['type'][] = [];
    const iterated: LoopEvent['type'][] = [];
    loop.on('kept', (e) => seen.push(e.type));
    loop.on('reverted', (e) => seen.push(e.type));
    loop.on('crash', (e) => seen.push(e.type));
    const consume = (async () => {
      for await (const e of loop.events()) iterated.push(e.type);
    })();
    await loop.run();
    await consume;
    expect(seen).toEqual(['kept', 'reverted', 'crash']);
    expect(iterated).toEqual([
      'iteration-started',
      'baseline',
      'iteration-started',
      'kept',
      'iteration-started',
      'reverted',
      'iteration-started',
      'crash',
      'stopped',
    ]);
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

  it('records a proposer failure as a crash row and stops after repeated failures', async () => {
    const artifact = createMemoryArtifact(0);
    const results = createMemoryResultsLog();
    const loop = createLoop({
      artifact,
      results,
      rollback: createMemoryRollback(artifact),
      proposer: createFunctionProposer('flaky', () => {
        throw new Error('agent API unavailable');
      }),
      harness: createFakeHarness({ scores: [10] }),
      scorer: createValueScorer('minimize'),
      recovery: { maxProposerFailures: 3 },
    });
    const summary = await loop.run();
    expect(summary.stop.reason).toBe('proposer-failing');
    expect(results.rows.slice(1).map((r) => r.description)).toEqual(
      Array(3).fill('proposer failed: agent API unavailable'),
    );
  });
});
