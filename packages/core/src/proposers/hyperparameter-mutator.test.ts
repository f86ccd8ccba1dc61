import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHyperparameterMutator, failedMoves, stepScale } from './hyperparameter-mutator.js';
import { createMemoryArtifact } from '../artifacts/memory-artifact.js';
import { createMemoryConfigAdapter } from './tpe/config-adapter.js';
import { createSeededRandom } from '../stats/random.js';
import type { ProposalContext } from '../contracts/proposer.js';

let dir: string;
const config = { lr: 0.001, hidden: 64, act: 'tanh', seed: 1 };
const space = {
  lr: { min: 1e-5, max: 1, scale: 'log' as const },
  hidden: { min: 8, max: 512, integer: true },
  act: { values: ['relu', 'tanh', 'gelu'] },
};
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-mutator-'));
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});
const ctx = (hints: string[] = [], history: ProposalContext['history'] = []) =>
  ({ hints, history }) as unknown as ProposalContext;
const read = async () => JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));

describe('hyperparameter mutator', () => {
  it('changes exactly one parameter per iteration, never one outside the space', async () => {
    const mutator = createHyperparameterMutator({
      file: join(dir, 'config.json'),
      space,
      random: createSeededRandom(7),
    });
    for (let i = 0; i < 20; i++) {
      const before = await read();
      const { description } = await mutator.propose(ctx());
      const after = await read();
      const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
      expect(changed).toHaveLength(1);
      expect(changed[0]).not.toBe('seed');
      expect(description).toMatch(new RegExp(`^${changed[0]} `));
    }
  });

  it('is reproducible: the same seed proposes the same sequence', async () => {
    const run = async (seed: number) => {
      await writeFile(join(dir, 'config.json'), JSON.stringify(config));
      const m = createHyperparameterMutator({
        file: join(dir, 'config.json'),
        space,
        random: createSeededRandom(seed),
      });
      const out: string[] = [];
      for (let i = 0; i < 5; i++) out.push((await m.propose(ctx())).description);
      return out;
    };
    expect(await run(42)).toEqual(await run(42));
    expect(await run(42)).not.toEqual(await run(43));
  });

  it('keeps values inside the space (integers stay integers, ranges are clamped)', async () => {
    const mutator = createHyperparameterMutator({
      file: join(dir, 'config.json'),
      space,
      random: createSeededRandom(3),
    });
    for (let i = 0; i < 50; i++) {
      await mutator.propose(ctx(i % 2 ? ['bold'] : []));
      const c = await read();
      expect(Number.isInteger(c.hidden) && c.hidden >= 8 && c.hidden <= 512).toBe(true);
      expect(c.lr >= 1e-5 && c.lr <= 1).toBe(true);
      expect(['relu', 'tanh', 'gelu']).toContain(c.act);
    }
  });

  it('never retries a move the history shows was discarded (seed 001: 不要重复)', async () => {
    const small = { act: { values: ['relu', 'tanh', 'gelu'] } };
    const history = [
      { iteration: 0, candidateId: 'a', score: 1, status: 'baseline' as const, description: 'baseline' },
      { iteration: 1, candidateId: 'b', score: 2, status: 'reverted' as const, description: 'act "tanh" -> "relu"' },
    ];
    for (let seed = 0; seed < 10; seed++) {
      await writeFile(join(dir, 'config.json'), JSON.stringify(config));
      const m = createHyperparameterMutator({
        file: join(dir, 'config.json'),
        space: small,
        random: createSeededRandom(seed),
      });
      expect((await m.propose(ctx([], history))).description).toBe('act "tanh" -> "gelu"');
    }
  });

  it(
    'a discarded move is banned only until the incumbent changes ' +
      '(context-aware blacklist: after a keep it may be retried)',
    () => {
      const rows = [
        { iteration: 0, candidateId: 'a', score: 1, status: 'baseline' as const, description: 'baseline' },
        { iteration: 1, candidateId: 'b', score: 2, status: 'reverted' as const, description: 'act "tanh" -> "relu"' },
        { iteration: 2, candidateId: 'c', score: 0.5, status: 'kept' as const, description: 'lr 0.001 -> 0.002' },
        {
          iteration: 3,
          candidateId: 'd',
          score: null,
          status: 'crash' as const,
          description: 'hidden 64 -> 512 (crash: out of memory)',
        },
      ];
      expect([...failedMoves(rows)]).toEqual(['hidden 64 -> 512']);
      expect([...failedMoves(rows.slice(0, 2))]).toEqual(['act "tanh" -> "relu"']);
    },
  );

  it(
    'the step shrinks with every proposal since the last keep and resets on ' +
      'a keep (step adaptation, from the history)',
    () => {
      const row = (i: number, status: 'kept' | 'reverted') => ({
        iteration: i,
        candidateId: '',
        score: 1,
        status,
        description: 'x',
      });
      const base = { iteration: 0, candidateId: '', score: 1, status: 'baseline' as const, description: 'baseline' };
      expect(stepScale([base])).toBe(1);
      expect(stepScale([base, row(1, 'reverted'), row(2, 'reverted')])).toBeCloseTo(0.85 ** 2);
      expect(stepScale([base, row(1, 'reverted'), row(2, 'kept')])).toBe(1);
      expect(stepScale([base, ...Array.from({ length: 60 }, (_, i) => row(i + 1, 'reverted'))])).toBe(0.05);
    },
  );

  it('edits an in-memory artifact through a config adapter', async () => {
    const artifact = createMemoryArtifact<Record<string, unknown>>({ ...config });
    const m = createHyperparameterMutator({
      config: createMemoryConfigAdapter(artifact),
      space,
      random: createSeededRandom(4),
    });
    const { description } = await m.propose(ctx());
    const changed = Object.keys(config).filter((k) => artifact.get()[k] !== (config as Record<string, unknown>)[k]);
    expect(changed).toHaveLength(1);
    expect(description).toMatch(new RegExp(`^${changed[0]} `));
  });

  it('an invalid space fails with CONFIG_INVALID naming the parameter', () => {
    expect(() =>
      createHyperparameterMutator({
        file: join(dir, 'config.json'),
        space: { lr: { min: 1, max: 0 } },
        random: createSeededRandom(1),
      }),
    ).toThrow(/space\.lr\.max: max must be greater than min/);
    expect(() => createHyperparameterMutator({ file: 'config.json', space, random: createSeededRandom(1) })).toThrow(
      /file: file must be an absolute path/,
    );
    expect(() => createHyperparameterMutator({ space, random: createSeededRandom(1) })).toThrow(
      /give exactly one of file and config/,
    );
  });
});
