import { describe, expect, it } from 'vitest';
import { createCounterProposer } from '@loop/internal-test-utils';
import { recordedViolations, withConstraints, requireMetrics, type ConstraintVerdict } from './constrained-keep.js';
import { parseConstraint } from './constraints.js';
import { createLoop } from '../engine/create-loop.js';
import { createFunctionHarness } from '../harness/function-harness.js';
import type { KeepInput, KeepPolicy } from '../contracts/keep-policy.js';
import { strictImprovement } from '../contracts/keep-policy.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { maxIterations } from '../contracts/stop-policy.js';

const spy = (keep = true) => {
  const calls: KeepInput[] = [];
  const policy: KeepPolicy = { name: 'spy', decide: (input) => (calls.push(input), { keep, reason: 'inner' }) };
  return { policy, calls };
};
const input = (metrics: Record<string, number>, extra: Partial<KeepInput> = {}): KeepInput => ({
  candidate: 1,
  incumbent: 2,
  direction: 'minimize',
  candidateData: { metrics },
  candidateMetrics: [metrics],
  baselineData: { metrics: { rss_mb: 100 } },
  incumbentData: { metrics: { rss_mb: 90 } },
  ...extra,
});

describe('constrained keep (issue 28)', () => {
  it(
    'a broken blocking constraint reverts without asking the inner policy; ' +
      'the note says which constraint and by how much',
    async () => {
      const { policy, calls } = spy();
      const d = await withConstraints(policy, ['rss_mb <= baseline * 1.05']).decide(input({ rss_mb: 120 }));
      expect(calls).toHaveLength(0);
      expect(d).toMatchObject({
        keep: false,
        note: 'blocked by constraint rss_mb <= baseline * 1.05 broken: 120 > 105 (by 15, 14.2857%)',
      });
      expect((d.data?.constraints as ConstraintVerdict).violations).toEqual([
        { constraint: 'rss_mb <= baseline * 1.05', mode: 'blocking', value: 120, bound: 105, violation: 15 },
      ]);
    },
  );

  it(
    'met constraints leave the decision to the inner policy (relative to the ' +
      'incumbent too) and record the values checked',
    async () => {
      const { policy, calls } = spy();
      const d = await withConstraints(policy, ['rss_mb <= incumbent * 1.1']).decide(input({ rss_mb: 99 }));
      expect(calls).toHaveLength(1);
      expect(d).toMatchObject({
        keep: true,
        reason: 'inner',
        data: { constraints: { values: { rss_mb: 99 }, samples: 1, violations: [] } },
      });
      expect(recordedViolations(d)![0]).toBeLessThanOrEqual(0);
    },
  );

  it('a broken advisory constraint keeps what the inner policy keeps, and the kept row warns', async () => {
    const d = await withConstraints(spy().policy, [parseConstraint('rss_mb <= 50', 'advisory')]).decide(
      input({ rss_mb: 60 }),
    );
    expect(d).toMatchObject({ keep: true, note: 'advisory constraint rss_mb <= 50 broken: 60 > 50 (by 10, 20%)' });
    const reverted = await withConstraints(spy(false).policy, [parseConstraint('rss_mb <= 50', 'advisory')]).decide(
      input({ rss_mb: 60 }),
    );
    expect(reverted.keep).toBe(false);
    expect(reverted.note).toBeUndefined();
  });

  it('a missing metric is a violation, never a pass', async () => {
    const d = await withConstraints(spy().policy, ['rss_mb <= 1000']).decide(input({ other: 1 }));
    expect(d).toMatchObject({ keep: false, note: 'blocked by constraint rss_mb <= 1000: rss_mb missing' });
  });

  it(
    'with re-sampling, the constraints are checked again on the mean of all ' + 'samples before a keep stands',
    async () => {
      const metrics: Record<string, number>[] = [{ rss_mb: 100 }];
      const inner: KeepPolicy = {
        name: 'resampling',
        decide: async () => (metrics.push({ rss_mb: 130 }, { rss_mb: 130 }), { keep: true, reason: 'better' }),
      };
      const d = await withConstraints(inner, ['rss_mb <= baseline * 1.1']).decide(
        input({ rss_mb: 100 }, { candidateMetrics: metrics }),
      );
      expect(d.keep).toBe(false);
      expect(d.note).toBe('blocked by constraint rss_mb <= baseline * 1.1 broken: 120 > 110 (by 10, 9.09091%)');
      expect(d.reason).toMatch(/on the mean of 3 samples; the keep policy said: better/);
    },
  );

  it('the incumbent reference is the mean its row was judged on, not its first sample', async () => {
    const incumbentData = {
      metrics: { rss_mb: 200 },
      constraints: { values: { rss_mb: 100 }, samples: 4, violations: [] },
    };
    const d = await withConstraints(spy().policy, ['rss_mb <= incumbent']).decide(
      input({ rss_mb: 150 }, { incumbentData }),
    );
    expect(d.keep).toBe(false);
  });
});

describe('requireMetrics', () => {
  it(
    'a run without a declared metric is a metric-not-found crash naming it; ' + 'one with it passes unchanged',
    async () => {
      const heard: string[][] = [];
      const scorer = requireMetrics(createValueScorer('minimize'), ['rss_mb', 'ops'], (m) => void heard.push([...m]));
      const run = { exitCode: 0, signal: null, timedOut: false, durationMs: 1, value: 3 };
      expect(await scorer.score({ ...run, data: { metrics: { rss_mb: 1 } } })).toMatchObject({
        ok: false,
        reason: 'metric-not-found',
        message: expect.stringMatching(/^metric ops missing from the run/),
      });
      expect(await scorer.score({ ...run, data: { metrics: { rss_mb: 1, ops: 2 } } })).toEqual({ ok: true, value: 3 });
      expect(heard).toEqual([['ops']]);
    },
  );
});

describe('constraints in a loop (engine, function harness with metrics)', () => {
  it(
    'a faster but bigger candidate is reverted with the constraint in its ' +
      'row, a faster and small one kept; a run missing the metric is a crash ' +
      'row',
    async () => {
      const artifact = createMemoryArtifact(0);
      const rss = [100, 150, 104, 101];
      const harness = createFunctionHarness('bench', ({ iteration }) =>
        iteration === 3 ? { value: 1 } : { value: 10 - iteration, metrics: { rss_mb: rss[iteration]! } },
      );
      const results = createMemoryResultsLog();
      const loop = createLoop({
        artifact,
        rollback: createMemoryRollback(artifact),
        proposer: createCounterProposer(artifact),
        results,
        stop: maxIterations(3),
        harness,
        scorer: requireMetrics(createValueScorer('minimize'), ['rss_mb']),
        keep: { policy: withConstraints(strictImprovement(), ['rss_mb <= baseline * 1.05']) },
      });
      await loop.run();
      expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'reverted', 'kept', 'crash']);
      expect(results.rows[1]?.description).toMatch(
        /\(blocked by constraint rss_mb <= baseline \* 1\.05 broken: 150 > 105/,
      );
      expect(results.rows[1]?.note).toMatch(/^blocked by constraint/);
      expect(results.rows[2]?.data?.metrics).toEqual({ rss_mb: 104 });
      expect(results.rows[3]?.description).toMatch(/metric rss_mb missing from the run/);
      // What a proposer reads back: the Optuna-style vector the decision was made on; none for the baseline and a
      // crash.
      expect(results.rows.map((r) => recordedViolations(r)?.map((v) => Number(v.toFixed(6))))).toEqual([
        undefined,
        [45],
        [-1],
        undefined,
      ]);
    },
  );
});
