import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFakeHarness } from '@loop/internal-test-utils';
import type { LoopEvent } from '../contracts/events.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createNoiseAwareKeepPolicy } from '../policies/noise-aware-keep-policy.js';
import { createSeededRandom } from '../stats/random.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { createLoop } from './create-loop.js';
import {
  createJsonSeedOnlyDetector,
  createMemorySeedOnlyDetector,
  isSeedOnlyJsonChange,
} from '../artifacts/seed-only.js';
import { maxIterations } from '../contracts/stop-policy.js';

describe('createLoop: seed-only candidates', () => {
  it(
    'a seed-only proposal is flagged "seed-only change" in the row and the ' +
      'event, and the noise-aware policy reverts it unsampled',
    async () => {
      const artifact = createMemoryArtifact({ lr: 0.1, seed: 1 });
      const results = createMemoryResultsLog();
      const events: LoopEvent[] = [];
      const harness = createFakeHarness({ score: () => (artifact.get().seed === 2 ? 1 : 10) });
      const loop = createLoop({
        artifact,
        rollback: createMemoryRollback(artifact),
        results,
        harness,
        scorer: createValueScorer('minimize'),
        proposer: {
          name: 'reseed',
          propose: () => (artifact.set({ ...artifact.get(), seed: 2 }), { description: 'seed 1 -> 2' }),
        },
        keep: {
          seedOnlyDetector: {
            name: 'memory-json',
            capture: () => structuredClone(artifact.get()),
            isSeedOnlyChange: (_c, before) => isSeedOnlyJsonChange(before, artifact.get()),
          },
          policy: createNoiseAwareKeepPolicy(),
        },
        stop: maxIterations(1),
      });
      loop.on('reverted', (e) => events.push(e));
      await loop.run();
      expect(results.rows[1]).toMatchObject({ status: 'reverted', description: 'seed 1 -> 2 (seed-only change)' });
      expect(events[0]).toMatchObject({ type: 'reverted', seedOnly: true });
      expect(harness.runs).toEqual([0, 1]);
    },
  );

  it(
    'a seed-only change is never kept, whatever the keep policy: a reseeding ' +
      'proposer on pure noise under the strict default gets 0 keeps in 50 ' +
      'iterations, each evaluated once',
    async () => {
      const artifact = createMemoryArtifact({ lr: 0.1, seed: 0 });
      const results = createMemoryResultsLog();
      const random = createSeededRandom(7);
      let runs = 0;
      // Pure noise around a baseline of 0.5: about half the reseeds score "better" by luck.
      const harness = createFakeHarness({ score: () => (runs++ === 0 ? 0.5 : random.next()) });
      const loop = createLoop({
        artifact,
        rollback: createMemoryRollback(artifact),
        results,
        harness,
        scorer: createValueScorer('minimize'),
        proposer: {
          name: 'reseed',
          propose: ({ iteration }) => (
            artifact.set({ ...artifact.get(), seed: iteration }),
            { description: `seed -> ${iteration}` }
          ),
        },
        keep: { seedOnlyDetector: createMemorySeedOnlyDetector(() => artifact.get()) },
        stop: maxIterations(50),
      });
      const summary = await loop.run();
      expect(summary.counts.kept).toBe(0);
      expect(
        results.rows.slice(1).every((r) => r.status === 'reverted' && r.description.endsWith('(seed-only change)')),
      ).toBe(true);
      expect(harness.runs).toHaveLength(51); // the baseline, then one evaluation per proposal
      expect(artifact.get()).toEqual({ lr: 0.1, seed: 0 });
    },
  );

  it('the JSON seed-only detector ignores `seed` and nothing else', async () => {
    expect(isSeedOnlyJsonChange({ lr: 1, seed: 1 }, { lr: 1, seed: 2 })).toBe(true);
    expect(isSeedOnlyJsonChange({ lr: 1, seed: 1 }, { lr: 2, seed: 2 })).toBe(false);
    expect(isSeedOnlyJsonChange({ lr: 1, seed: 1 }, { lr: 1, seed: 1 })).toBe(false);
    expect(isSeedOnlyJsonChange({ lr: 1, Seed: 1 }, { lr: 1, Seed: 3 })).toBe(true);
    const dir = await mkdtemp(join(tmpdir(), 'loop-seed-'));
    try {
      const file = join(dir, 'config.json');
      await writeFile(file, JSON.stringify({ lr: 0.1, seed: 1 }));
      const detector = createJsonSeedOnlyDetector({ file });
      const before = await detector.capture!();
      await writeFile(file, JSON.stringify({ lr: 0.1, seed: 9 }));
      expect(
        await detector.isSeedOnlyChange({ changed: ['config.json'], violations: [], description: 'reseed' }, before),
      ).toBe(true);
      expect(
        await detector.isSeedOnlyChange(
          { changed: ['config.json', 'x.py'], violations: [], description: 'reseed' },
          before,
        ),
      ).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
