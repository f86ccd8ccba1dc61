import { describe, expect, it } from 'vitest';
import { createCounterProposer, createFakeHarness } from '@loop/internal-test-utils';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createFunctionProposer } from '../contracts/proposer.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { createLoop } from './create-loop.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { setup } from './test-fixtures/loop-setup.js';

describe('createLoop: crashes and repairs', () => {
  it('records a crash row and rolls the candidate back', async () => {
    const { loop, results, artifact } = setup([10, { crash: 'timeout' }, { crash: 'nan' }, { crash: 'no-metric' }]);
    const summary = await loop.run();
    expect(results.rows.slice(1).map((r) => r.status)).toEqual(['crash', 'crash', 'crash']);
    expect(results.rows[1]?.description).toMatch(/timed out/);
    expect(results.rows[2]?.description).toMatch(/not finite/);
    expect(artifact.get()).toBe(0);
    expect(summary.counts).toEqual({ kept: 0, reverted: 0, rejected: 0, crash: 3, halted: 0 });
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
