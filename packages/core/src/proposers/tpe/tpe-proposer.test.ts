import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLoop } from '../../engine/create-loop.js';
import { createFunctionHarness } from '../../harness/function-harness.js';
import { createHyperparameterMutator } from '../hyperparameter-mutator.js';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import { createMemoryArtifact, createMemoryRollback } from '../../artifacts/memory.js';
import type { ProposalContext } from '../../contracts/proposer.js';
import { createSeededRandom } from '../../stats/random.js';
import { createValueScorer } from '../../scoring/regex-scorer.js';
import { maxIterations } from '../../contracts/stop-policy.js';
import { createConfigFileAdapter, createMemoryConfigAdapter } from './config-adapter.js';
import { parseChanges } from './description.js';
import type { TpeParameter } from './space.js';
import { createTpeProposer } from './tpe-proposer.js';

type Config = Record<string, unknown>;
const space: Record<string, TpeParameter> = {
  lr: { min: 1e-4, max: 1e-1, scale: 'log' },
  hidden: { min: 16, max: 512, scale: 'log', integer: true },
  layers: { min: 1, max: 6, integer: true },
  batch: { values: [16, 32, 64, 128] },
  optimizer: { values: ['sgd', 'adam', 'rmsprop'] },
};
const start: Config = { lr: 0.01, hidden: 64, layers: 2, batch: 32, optimizer: 'sgd', seed: 7 };
const OPT_LR: Record<string, number> = { sgd: 0.03, adam: 0.002, rmsprop: 0.0007 };
const OPT_OFFSET: Record<string, number> = { sgd: 0.15, adam: 0, rmsprop: 0.08 };
const loss = (c: Config) =>
  OPT_OFFSET[c.optimizer as string]! +
  0.3 * (Math.log(c.lr as number) - Math.log(OPT_LR[c.optimizer as string]!)) ** 2 +
  0.15 * (Math.log2(c.hidden as number) - 7) ** 2 +
  0.05 * ((c.layers as number) - 3) ** 2 +
  0.02 * (Math.log2(c.batch as number) - 6) ** 2;

interface Run {
  rows: IterationRecord[];
  evaluated: Config[];
  final: Config;
  best: number;
}

/** Runs the real engine on an in-memory config; `crashWhen` makes the harness throw (a crash row). */
async function run(
  options: {
    seed?: number;
    iterations?: number;
    history?: Config;
    spaceOverride?: Record<string, TpeParameter>;
    crashWhen?: (c: Config) => boolean;
    f?: (c: Config) => number;
    proposer?: 'tpe' | 'mutator';
    avoidCrashes?: boolean;
    tpe?: {
      useBaseline?: boolean;
      univariate?: number;
      refine?: number;
      refineCandidates?: number;
      surrogate?: 'parzen' | 'gp';
    };
  } = {},
): Promise<Run> {
  const artifact = createMemoryArtifact<Config>(options.history ?? start);
  const config = createMemoryConfigAdapter(artifact);
  const f = options.f ?? loss;
  const proposer =
    options.proposer === 'mutator'
      ? createHyperparameterMutator({
          config,
          space: (options.spaceOverride ?? space) as never,
          random: createSeededRandom(options.seed ?? 1),
        })
      : createTpeProposer({
          config,
          space: options.spaceOverride ?? space,
          seed: options.seed ?? 1,
          ...(options.avoidCrashes === undefined ? {} : { avoidCrashes: options.avoidCrashes }),
          ...options.tpe,
        });
  const evaluated: Config[] = [];
  const rows: IterationRecord[] = [];
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer,
    harness: createFunctionHarness('loss', () => {
      const c = artifact.get();
      evaluated.push({ ...c });
      if (options.crashWhen?.(c)) throw new Error('out of memory');
      return f(c);
    }),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(options.iterations ?? 30),
  });
  for (const type of ['baseline', 'kept', 'reverted', 'crash'] as const)
    loop.on(type as never, (e: { record: IterationRecord }) => rows.push(e.record));
  const summary = await loop.run();
  return { rows, evaluated, final: artifact.get(), best: summary.best };
}

const changed = (a: Config, b: Config) => Object.keys(space).filter((k) => a[k] !== b[k]);
const ctx = (history: IterationRecord[], iteration: number): ProposalContext => ({
  iteration,
  attempt: 0,
  history,
  baseline: 0,
  best: 0,
  direction: 'minimize',
  hints: [],
  signal: new AbortController().signal,
});

describe('TPE proposer', () => {
  it('names every changed parameter in its description, and only those (`key from -> to`, comma-separated)', async () => {
    const { rows, evaluated } = await run({ iterations: 25 });
    let incumbent = start;
    rows.slice(1).forEach((row, i) => {
      const c = evaluated[i + 1]!;
      const names = parseChanges(row.description, new Set(Object.keys(space)))!.map((x) => x.key);
      expect(names.sort()).toEqual(changed(incumbent, c).sort());
      expect(names.length).toBeGreaterThan(0);
      for (const x of parseChanges(row.description, new Set(Object.keys(space)))!) expect(x.to).toBe(c[x.key]);
      if (row.status === 'kept') incumbent = c;
    });
    expect(evaluated.every((c) => c.seed === 7)).toBe(true); // keys outside the space are never touched
  });

  it('is reproducible: the same seed proposes the same sequence, another seed another', async () => {
    const a = await run({ seed: 5, iterations: 15 });
    const b = await run({ seed: 5, iterations: 15 });
    const c = await run({ seed: 6, iterations: 15 });
    expect(a.rows.map((r) => r.description)).toEqual(b.rows.map((r) => r.description));
    expect(a.rows.map((r) => r.description)).not.toEqual(c.rows.map((r) => r.description));
  });

  it('a resumed run rebuilds the same model from the rows: it proposes what the uninterrupted run proposed next', async () => {
    const full = await run({ seed: 3, iterations: 20 });
    // Resume after 12 iterations: a fresh proposer, the first 13 rows as history, the config as the engine left it (the incumbent).
    const history = full.rows.slice(0, 13);
    let incumbent = start;
    history.forEach((r, i) => {
      if (r.status === 'kept') incumbent = full.evaluated[i]!;
    });
    const artifact = createMemoryArtifact<Config>(incumbent);
    const fresh = createTpeProposer({ config: createMemoryConfigAdapter(artifact), space, seed: 3 });
    const proposal = await fresh.propose(ctx(history, 13));
    expect(proposal.description).toBe(full.rows[13]!.description);
    expect(artifact.get()).toEqual(full.evaluated[13]);
  });

  it('keeps integer and log ranges: integers stay whole and every value stays inside its bounds', async () => {
    const { evaluated } = await run({ iterations: 40, seed: 11 });
    for (const c of evaluated) {
      expect(Number.isInteger(c.hidden) && (c.hidden as number) >= 16 && (c.hidden as number) <= 512).toBe(true);
      expect(Number.isInteger(c.layers) && (c.layers as number) >= 1 && (c.layers as number) <= 6).toBe(true);
      expect((c.lr as number) >= 1e-4 && (c.lr as number) <= 1e-1).toBe(true);
      expect([16, 32, 64, 128]).toContain(c.batch);
      expect(['sgd', 'adam', 'rmsprop']).toContain(c.optimizer);
    }
  });

  it('avoids a region that crashed: with crash learning, at most half the crashes of the same run with crashes ignored (5 seeds, 40 evaluations)', async () => {
    const s = {
      lr: { min: 1e-4, max: 1e-1, scale: 'log' as const },
      hidden: { min: 16, max: 512, scale: 'log' as const, integer: true },
    };
    // The best lr is near the crash boundary (lr > 0.03 runs out of memory): a model that does not learn keeps stepping over it.
    const f = (c: Config) => (Math.log10(c.lr as number) + 1.6) ** 2 + (Math.log2(c.hidden as number) - 7) ** 2 * 0.01;
    const crashWhen = (c: Config) => (c.lr as number) > 0.03;
    const crashes = async (avoidCrashes: boolean) => {
      let n = 0;
      for (const seed of [1, 2, 3, 4, 5]) {
        const r = await run({
          spaceOverride: s,
          f,
          crashWhen,
          iterations: 39,
          seed,
          history: { lr: 0.001, hidden: 64 },
          avoidCrashes,
        });
        n += r.rows.filter((row) => row.status === 'crash').length;
      }
      return n;
    };
    const learned = await crashes(true);
    const ignored = await crashes(false);
    expect(learned).toBeGreaterThan(0);
    expect(learned * 2).toBeLessThanOrEqual(ignored);
  });

  it('writes fixed parameters as given and changes a conditional one only while its condition holds', async () => {
    const s: Record<string, TpeParameter> = {
      optimizer: { values: ['sgd', 'adam'] },
      momentum: { min: 0, max: 0.99, when: { optimizer: ['sgd'] } },
      lr: { min: 1e-4, max: 1e-1, scale: 'log' },
      epochs: { fixed: 3 },
    };
    const f = (c: Config) =>
      (c.optimizer === 'sgd' ? ((c.momentum as number) - 0.9) ** 2 : 0.05) + (Math.log10(c.lr as number) + 2) ** 2;
    const { rows, evaluated } = await run({
      spaceOverride: s,
      f,
      iterations: 30,
      history: { optimizer: 'adam', momentum: 0.5, lr: 0.01, epochs: 1 },
    });
    const keys = new Set(Object.keys(s));
    expect(evaluated.slice(1).every((c) => c.epochs === 3)).toBe(true);
    let incumbent: Config = evaluated[0]!;
    rows.slice(1).forEach((row, i) => {
      const c = evaluated[i + 1]!;
      const names = parseChanges(row.description, keys)!.map((x) => x.key);
      if (names.includes('momentum')) expect(c.optimizer).toBe('sgd');
      if (c.optimizer === 'adam') expect(c.momentum).toBe(incumbent.momentum);
      if (row.status === 'kept') incumbent = c;
    });
    expect(evaluated.some((c) => c.optimizer === 'sgd' && c.momentum !== 0.5)).toBe(true);
  });

  it('edits a JSON config file through the file adapter, other keys untouched', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loop-tpe-'));
    try {
      await writeFile(join(dir, 'config.json'), JSON.stringify(start));
      const p = createTpeProposer({ config: createConfigFileAdapter({ dir, file: 'config.json' }), space, seed: 2 });
      const rows: IterationRecord[] = [
        { iteration: 0, candidateId: 'a', score: loss(start), status: 'baseline', description: 'baseline' },
      ];
      const proposal = await p.propose(ctx(rows, 1));
      const after = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
      expect(proposal.changedFiles).toEqual(['config.json']);
      expect(after.seed).toBe(7);
      expect(
        parseChanges(proposal.description, new Set(Object.keys(space)))!
          .map((c) => c.key)
          .sort(),
      ).toEqual(changed(start, after).sort());
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('beats the hyperparameter mutator at equal evaluations on a small seeded mixed objective (median of 7 seeds, 40 evaluations)', async () => {
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const seeds = [1, 2, 3, 4, 5, 6, 7];
    const tpe = median(await Promise.all(seeds.map(async (seed) => (await run({ seed, iterations: 39 })).best)));
    const mutator = median(
      await Promise.all(seeds.map(async (seed) => (await run({ seed, iterations: 39, proposer: 'mutator' })).best)),
    );
    expect(tpe).toBeLessThan(mutator);
  });

  it('the baseline row does not join the model by default: how well the start config scores does not change what is evaluated (useBaseline: true lets it in)', async () => {
    const isStart = (c: Config) => Object.keys(space).every((k) => c[k] === start[k]);
    const lucky = (c: Config) => (isStart(c) ? -10 : loss(c));
    const unlucky = (c: Config) => (isStart(c) ? 10 : loss(c));
    const a = await run({ seed: 2, iterations: 20, f: lucky });
    const b = await run({ seed: 2, iterations: 20, f: unlucky });
    expect(a.evaluated).toEqual(b.evaluated);
    const c = await run({ seed: 2, iterations: 20, f: lucky, tpe: { useBaseline: true } });
    const d = await run({ seed: 2, iterations: 20, f: unlucky, tpe: { useBaseline: true } });
    expect(c.evaluated).not.toEqual(d.evaluated);
  });

  it('per-parameter (univariate) proposals move each parameter towards its good rows: on a sum of per-parameter bowls every proposal after the design samples the good region more', async () => {
    const f = (c: Config) =>
      (Math.log10(c.lr as number) + 2.5) ** 2 + ((c.layers as number) - 5) ** 2 / 4 + (c.optimizer === 'adam' ? 0 : 1);
    const { evaluated } = await run({
      seed: 4,
      iterations: 30,
      f,
      tpe: { univariate: 1, refine: 0, surrogate: 'parzen' },
    });
    const late = evaluated.slice(15);
    expect(late.filter((c) => c.optimizer === 'adam').length).toBeGreaterThan(late.length / 2);
    expect(late.filter((c) => Math.abs(Math.log10(c.lr as number) + 2.5) < 0.75).length).toBeGreaterThan(
      late.length / 2,
    );
  });

  it('a scored refinement step proposes the local move the model rates best: with several moves per step (refineCandidates 8) the refinements score better than with the first move (refineCandidates 1), summed over 5 seeds', async () => {
    const f = (c: Config) =>
      (Math.log10(c.lr as number) + 2.5) ** 2 +
      ((c.layers as number) - 5) ** 2 / 4 +
      (Math.log2(c.hidden as number) - 7) ** 2 / 4;
    const late = async (refineCandidates: number) => {
      let total = 0;
      for (const seed of [1, 2, 3, 4, 5])
        total += (
          await run({ seed, iterations: 30, f, tpe: { refine: 1, refineCandidates, surrogate: 'parzen' } })
        ).evaluated
          .slice(10)
          .reduce((a, c) => a + f(c), 0);
      return total;
    };
    expect(await late(8)).toBeLessThan(await late(1));
  });

  it('the default GP ranking (surrogate gp) ends lower than l/g ranking (surrogate parzen) on a smooth continuous objective (a rotated valley): summed best loss over 5 seeds, 30 evaluations', async () => {
    const s2 = { x: { min: -5, max: 10 }, y: { min: 0, max: 15 } };
    const f = (c: Config) => ((c.y as number) - 0.4 * (c.x as number) - 5) ** 2 / 10 + ((c.x as number) - 3) ** 2 / 5;
    const bestOf = async (surrogate: 'parzen' | 'gp') => {
      let total = 0;
      for (const seed of [1, 2, 3, 4, 5])
        total += (
          await run({ seed, iterations: 29, f, spaceOverride: s2, history: { x: 0, y: 0 }, tpe: { surrogate } })
        ).best;
      return total;
    };
    const gp = await bestOf('gp');
    const parzen = await bestOf('parzen');
    expect(gp).toBeLessThan(parzen);
  });

  it('an invalid space fails with CONFIG_INVALID naming the parameter', () => {
    const config = createMemoryConfigAdapter(createMemoryArtifact<Config>(start));
    expect(() => createTpeProposer({ config, space: { lr: { min: 1, max: 0 } } })).toThrow(
      /space\.lr\.max: max must be greater than min/,
    );
    expect(() => createTpeProposer({ config, space: { e: { fixed: 1 } } })).toThrow(/at least one searched parameter/);
  });
});
