import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLoop } from '../engine/create-loop.js';
import { createFunctionHarness } from '../harness/function-harness.js';
import { strictImprovement } from '../contracts/keep-policy.js';
import { createMemoryArtifact, createMemoryRollback } from './memory-artifact.js';
import { createNoiseAwareKeepPolicy } from '../policies/noise-aware-keep-policy.js';
import { createFunctionProposer } from '../contracts/proposer.js';
import { createSeededRandom } from '../stats/random.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import {
  createJsonSeedOnlyDetector,
  createMemorySeedOnlyDetector,
  createSeedOnlyDetector,
  isSeedKey,
  isSeedOnlyJsonChange,
  isSeedOnlyTextChange,
  rejectingSeedOnly,
} from './seed-only.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { createMemoryWorkingCopies } from './memory-working-copies.js';
import { createContextProposer } from '@loop/internal-test-utils';

const noChange = { violations: [], description: 'reseed' };

describe('seed-only detection', () => {
  it('keys named like a seed match (seed, random_seed, *_seed, *-seed, camelCase *Seed, seed_*), others do not', () => {
    for (const k of ['seed', 'SEED', 'random_seed', 'data_seed', 'torch-seed', 'randomSeed', 'seed_value', 'np.seed'])
      expect(isSeedKey(k), k).toBe(true);
    for (const k of ['seedling', 'speed', 'lr', 'need', 'seeds_list_len', 'reseeded'])
      expect(isSeedKey(k), k).toBe(false);
    expect(isSeedKey('rng', ['RNG'])).toBe(true);
  });

  it('a JSON change is seed-only only when every changed value, at any depth, is under a seed key', () => {
    expect(isSeedOnlyJsonChange({ lr: 1, random_seed: 1 }, { lr: 1, random_seed: 2 })).toBe(true);
    expect(isSeedOnlyJsonChange({ train: { seed: 1, lr: 1 } }, { train: { seed: 2, lr: 1 } })).toBe(true);
    expect(isSeedOnlyJsonChange({ train: { seed: 1, lr: 1 } }, { train: { seed: 2, lr: 2 } })).toBe(false);
    expect(isSeedOnlyJsonChange({ lr: 1, seed: 1 }, { lr: 1, seed: 1 })).toBe(false);
    expect(isSeedOnlyJsonChange({ lr: 1, rng: 1 }, { lr: 1, rng: 2 }, ['rng'])).toBe(true);
    expect(isSeedOnlyJsonChange([1], [2])).toBe(false);
  });

  it(
    'a text change is seed-only when only seed assignment lines differ ' + '(YAML, .env, Python, flags, one-line JSON)',
    () => {
      expect(isSeedOnlyTextChange('lr: 0.1\nseed: 3\n', 'lr: 0.1\nseed: 4\n')).toBe(true);
      expect(isSeedOnlyTextChange('export DATA_SEED=1\nLR=2\n', 'export DATA_SEED=9\nLR=2\n')).toBe(true);
      expect(isSeedOnlyTextChange('random_seed = 1\nlr = 2\n', 'random_seed = 5\nlr = 2\n')).toBe(true);
      expect(isSeedOnlyTextChange('--seed 1\n', '--seed 2\n')).toBe(true);
      expect(isSeedOnlyTextChange('{"lr":1,"seed":1}', '{"lr":1,"seed":2}')).toBe(true);
      expect(isSeedOnlyTextChange('lr: 0.1\nseed: 3\n', 'lr: 0.2\nseed: 4\n')).toBe(false);
      expect(isSeedOnlyTextChange('seed: 3\n', 'seed: 3\nlr: 1\n')).toBe(false);
      expect(isSeedOnlyTextChange('seed: 3\n', 'seed: 3\n')).toBe(false);
    },
  );

  it(
    'the JSON file detector matches a nested path (conf/config.json) ' + 'without artifactPath, and random_seed',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'loop-seed-'));
      try {
        await mkdir(join(dir, 'conf'));
        const file = join(dir, 'conf', 'config.json');
        await writeFile(file, JSON.stringify({ lr: 1, random_seed: 1 }));
        const detector = createJsonSeedOnlyDetector({ file });
        const before = await detector.capture!();
        await writeFile(file, JSON.stringify({ lr: 1, random_seed: 2 }));
        expect(await detector.isSeedOnlyChange({ changed: ['conf/config.json'], ...noChange }, before)).toBe(true);
        expect(await detector.isSeedOnlyChange({ changed: ['other/config.json'], ...noChange }, before)).toBe(false);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it(
    'the any-format detector reads the configured files under the root ' +
      '(YAML), and any other changed path makes it not seed-only',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'loop-seed-'));
      try {
        await writeFile(join(dir, 'params.yaml'), 'lr: 0.1\nseed: 1\n');
        const detector = createSeedOnlyDetector({ root: dir, files: ['params.yaml'] });
        const before = await detector.capture!();
        await writeFile(join(dir, 'params.yaml'), 'lr: 0.1\nseed: 2\n');
        expect(await detector.isSeedOnlyChange({ changed: ['params.yaml'], ...noChange }, before)).toBe(true);
        expect(await detector.isSeedOnlyChange({ changed: ['params.yaml', 'train.py'], ...noChange }, before)).toBe(
          false,
        );
        await writeFile(join(dir, 'params.yaml'), 'lr: 0.2\nseed: 2\n');
        expect(await detector.isSeedOnlyChange({ changed: ['params.yaml'], ...noChange }, before)).toBe(false);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  for (const [name, makePolicy] of [
    ['strict improvement', () => strictImprovement()],
    ['noise-aware', () => createNoiseAwareKeepPolicy()],
  ] as const) {
    it(
      `a seed-only proposer on a pure-noise objective gets 0 keeps in 50 ` +
        `iterations under ${name}, each proposal evaluated once (in-memory ` +
        `artifact, seeded noise)`,
      async () => {
        const artifact = createMemoryArtifact({ lr: 0.1, seed: 0 });
        const noise = createSeededRandom(11);
        let calls = 0;
        const loop = createLoop({
          artifact,
          rollback: createMemoryRollback(artifact),
          proposer: createFunctionProposer('reseed', ({ iteration }) => {
            artifact.set({ ...artifact.get(), seed: iteration });
            return { description: `seed -> ${iteration}` };
          }),
          harness: createFunctionHarness('noise', () => (calls++, noise.next())),
          scorer: createValueScorer('maximize'),
          keep: { policy: makePolicy(), seedOnlyDetector: createMemorySeedOnlyDetector(artifact.get) },
          stop: maxIterations(50),
        });
        let kept = 0;
        loop.on('kept', () => kept++);
        await loop.run();
        expect(kept).toBe(0);
        expect(calls).toBe(1 + 50);
      },
    );
  }

  it(
    'a seed-only proposer in a parallel batch of in-memory copies is caught ' +
      'in each copy: 0 keeps in 60 candidates (issue 32)',
    async () => {
      const artifact = createMemoryArtifact({ lr: 0.1, seed: 0 });
      const noise = createSeededRandom(5);
      const loop = createLoop({
        artifact,
        rollback: createMemoryRollback(artifact),
        proposer: createContextProposer<{ lr: number; seed: number }>((v, { iteration }) => ({
          ...v,
          seed: iteration,
        })),
        harness: createFunctionHarness('noise', () => noise.next()),
        scorer: createValueScorer('maximize'),
        keep: { seedOnlyDetector: createMemorySeedOnlyDetector(artifact.get) },
        parallel: {
          candidates: 3,
          workingCopies: createMemoryWorkingCopies(artifact, () => createFunctionHarness('noise', () => noise.next())),
        },
        stop: maxIterations(60),
      });
      let kept = 0;
      let flagged = 0;
      loop.on('kept', () => kept++);
      loop.on('reverted', (e) => (flagged += e.seedOnly ? 1 : 0));
      await loop.run();
      expect(kept).toBe(0);
      expect(flagged).toBe(60);
    },
  );

  it('rejectingSeedOnly passes every other decision to the wrapped policy', async () => {
    const policy = rejectingSeedOnly(strictImprovement());
    const input = { candidate: 2, incumbent: 1, direction: 'maximize' as const, iteration: 1 };
    expect((await policy.decide(input as never)).keep).toBe(true);
    expect((await policy.decide({ ...input, seedOnly: true } as never)).keep).toBe(false);
  });
});
