import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCounterProposer, createFakeHarness } from '@loop/internal-test-utils';
import type { LoopEvent } from '../contracts/events.js';
import type { KeepInput, KeepPolicy } from '../contracts/keep-policy.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createNoiseAwareKeepPolicy } from '../policies/noise-aware-keep-policy.js';
import { createSeededRandom } from '../stats/random.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { createLoop } from './create-loop.js';
import { maxIterations } from '../contracts/stop-policy.js';
import type { RandomSource } from '../contracts/types.js';

const gaussian = (r: RandomSource) => Math.sqrt(-2 * Math.log(1 - r.next())) * Math.cos(2 * Math.PI * r.next());

describe('createLoop: noise support', () => {
  it(
    'baselineRepeats re-runs the baseline k times: score = mean, spread ' + '(sd, MAD) in the event and the state',
    async () => {
      const artifact = createMemoryArtifact(0);
      const events: LoopEvent[] = [];
      const dir = await mkdtemp(join(tmpdir(), 'loop-noise-'));
      try {
        const loop = createLoop({
          artifact,
          rollback: createMemoryRollback(artifact),
          proposer: createCounterProposer(artifact),
          harness: createFakeHarness({ scores: [10, 12, 11, 30, 11] }),
          scorer: createValueScorer('minimize'),
          stop: maxIterations(0),
          files: { statePath: join(dir, 'state.json') },
          run: { baselineRepeats: 4 },
        });
        loop.on('baseline', (e) => events.push(e));
        const summary = await loop.run();
        expect(summary.baseline).toBe(15.75);
        const e = events[0] as Extract<LoopEvent, { type: 'baseline' }>;
        expect(e.samples).toEqual([10, 12, 11, 30]);
        expect(e.spread.n).toBe(4);
        expect(e.spread.sd).toBeCloseTo(9.5, 1);
        expect(e.spread.mad).toBeCloseTo(1.4826, 4); // the 30 outlier barely moves the MAD
        const state = JSON.parse(await readFile(join(dir, 'state.json'), 'utf8'));
        expect(state).toMatchObject({
          baselineSamples: [10, 12, 11, 30],
          incumbentSamples: [10, 12, 11, 30],
          baselineSpread: { n: 4 },
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it(
    'the harness gets seed and repeat; seedForRepeat varies the seed across ' + 'repeats (default: one fixed seed)',
    async () => {
      const seen: [number | undefined, number | undefined][] = [];
      const artifact = createMemoryArtifact(0);
      const loop = createLoop({
        artifact,
        rollback: createMemoryRollback(artifact),
        proposer: createCounterProposer(artifact),
        harness: createFakeHarness({ score: (c) => (seen.push([c.seed, c.repeat]), 5) }),
        scorer: createValueScorer('minimize'),
        stop: maxIterations(0),
        run: { baselineRepeats: 3, seedForRepeat: (r) => 100 + r },
      });
      await loop.run();
      expect(seen).toEqual([
        [100, 0],
        [101, 1],
        [102, 2],
      ]);
      seen.length = 0;
      const fixed = createLoop({
        artifact,
        rollback: createMemoryRollback(artifact),
        proposer: createCounterProposer(artifact),
        harness: createFakeHarness({ score: (c) => (seen.push([c.seed, c.repeat]), 5) }),
        scorer: createValueScorer('minimize'),
        stop: maxIterations(0),
        run: { baselineRepeats: 2, seed: 7 },
      });
      await fixed.run();
      expect(seen).toEqual([
        [7, 0],
        [7, 1],
      ]);
    },
  );

  it('the strict policy stays the default: one run per candidate and the single score decides', async () => {
    const artifact = createMemoryArtifact(0);
    const harness = createFakeHarness({ scores: [10, 9.999, 10] });
    const loop = createLoop({
      artifact,
      rollback: createMemoryRollback(artifact),
      proposer: createCounterProposer(artifact),
      harness,
      scorer: createValueScorer('minimize'),
      stop: maxIterations(2),
    });
    const summary = await loop.run();
    expect(harness.runs).toEqual([0, 1, 2]);
    expect(summary.counts.kept).toBe(1);
  });

  it(
    'the engine tracks the incumbent samples: the baseline repeats, then ' +
      "each kept candidate's samples; the row score is their mean",
    async () => {
      const inputs: { cand: number[]; inc: number[] }[] = [];
      const policy: KeepPolicy = {
        name: 'sample-twice',
        decide: async (input: KeepInput) => {
          await input.sample!();
          inputs.push({ cand: [...input.candidateSamples!], inc: [...input.incumbentSamples!] });
          return { keep: input.candidateSamples!.length === 2 && input.candidateSamples![0]! < 5 };
        },
      } as KeepPolicy;
      const artifact = createMemoryArtifact(0);
      const results = createMemoryResultsLog();
      const loop = createLoop({
        artifact,
        rollback: createMemoryRollback(artifact),
        proposer: createCounterProposer(artifact),
        results,
        harness: createFakeHarness({ scores: [10, 11, 4, 2, 3, 3.5] }),
        scorer: createValueScorer('minimize'),
        run: { baselineRepeats: 2 },
        keep: { policy },
        stop: maxIterations(2),
      });
      await loop.run();
      expect(inputs).toEqual([
        { cand: [4, 2], inc: [10, 11] },
        { cand: [3, 3.5], inc: [4, 2] },
      ]);
      expect(results.rows.map((r) => r.score)).toEqual([10.5, 3, 3.25]);
    },
  );

  it(
    'a noisy null objective: noise-aware keeps nothing where strict keeps ' + 'several (seed 21, 30 iterations, σ = 1)',
    async () => {
      const run = async (keepPolicy?: KeepPolicy) => {
        const noise = createSeededRandom(21);
        const artifact = createMemoryArtifact(0);
        const loop = createLoop({
          artifact,
          rollback: createMemoryRollback(artifact),
          proposer: createCounterProposer(artifact),
          harness: createFakeHarness({ score: () => 100 + gaussian(noise) }),
          scorer: createValueScorer('minimize'),
          stop: maxIterations(30),
          ...(keepPolicy ? { run: { baselineRepeats: 5 }, keep: { policy: keepPolicy } } : {}),
        });
        return (await loop.run()).counts.kept;
      };
      expect(await run()).toBeGreaterThanOrEqual(3);
      expect(await run(createNoiseAwareKeepPolicy())).toBe(0);
    },
  );

  it(
    'the kept/reverted events carry the decision evidence and samples; ' +
      'decisionsLogPath gets one JSONL line per decision; the results log keeps ' +
      'one row per iteration',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'loop-noise-'));
      try {
        const noise = createSeededRandom(3);
        const artifact = createMemoryArtifact(0);
        const truth = [100, 95, 100];
        const events: LoopEvent[] = [];
        const results = createMemoryResultsLog();
        const loop = createLoop({
          artifact,
          rollback: createMemoryRollback(artifact),
          proposer: createCounterProposer(artifact),
          harness: createFakeHarness({ score: () => (truth[artifact.get()] ?? 100) + gaussian(noise) }),
          scorer: createValueScorer('minimize'),
          results,
          stop: maxIterations(2),
          files: { decisionsLogPath: join(dir, 'decisions.jsonl') },
          run: { baselineRepeats: 4 },
          keep: { policy: createNoiseAwareKeepPolicy({ futilityAfter: false }) },
        });
        loop.on('kept', (e) => events.push(e));
        loop.on('reverted', (e) => events.push(e));
        await loop.run();
        expect(events.map((e) => e.type)).toEqual(['kept', 'reverted']);
        const kept = events[0] as Extract<LoopEvent, { type: 'kept' }>;
        expect(kept.decision.evidence).toMatchObject({ test: 'welch', incumbent: { n: 4 } });
        expect(kept.samples.length).toBe(kept.decision.evidence!.candidate.n);
        const lines = (await readFile(join(dir, 'decisions.jsonl'), 'utf8'))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        expect(lines.map((l) => l.status)).toEqual(['baseline', 'kept', 'reverted']);
        expect(lines[0]).toMatchObject({ iteration: 0, spread: { n: 4 } });
        expect(lines[1]).toMatchObject({
          iteration: 1,
          policy: 'noise-aware(welch, 0.95)',
          evidence: { test: 'welch' },
        });
        expect(results.rows.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted']);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('baselineRepeats must be a whole number >= 1 (CONFIG_INVALID)', () => {
    const artifact = createMemoryArtifact(0);
    expect(() =>
      createLoop({
        artifact,
        rollback: createMemoryRollback(artifact),
        proposer: createCounterProposer(artifact),
        harness: createFakeHarness({ scores: [1] }),
        scorer: createValueScorer('minimize'),
        run: { baselineRepeats: 0 },
      }),
    ).toThrow(/baselineRepeats/);
  });
});
