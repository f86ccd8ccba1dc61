import { describe, expect, it } from 'vitest';
import { loss, run, space, start, type Config } from './test-fixtures/tpe-run.js';

describe('TPE proposer search', () => {
  it(
    'avoids a region that crashed: with crash learning, at most half the ' +
      'crashes of the same run with crashes ignored (5 seeds, 40 evaluations)',
    async () => {
      const s = {
        lr: { min: 1e-4, max: 1e-1, scale: 'log' as const },
        hidden: { min: 16, max: 512, scale: 'log' as const, integer: true },
      };
      // The best lr is near the crash boundary (lr > 0.03 runs out of memory): a model that does not learn keeps
      // stepping
      // over it.
      const f = (c: Config) =>
        (Math.log10(c.lr as number) + 1.6) ** 2 + (Math.log2(c.hidden as number) - 7) ** 2 * 0.01;
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
    },
  );

  it(
    'beats the hyperparameter mutator at equal evaluations on a small seeded ' +
      'mixed objective (median of 7 seeds, 40 evaluations)',
    async () => {
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const seeds = [1, 2, 3, 4, 5, 6, 7];
      const tpe = median(await Promise.all(seeds.map(async (seed) => (await run({ seed, iterations: 39 })).best)));
      const mutator = median(
        await Promise.all(seeds.map(async (seed) => (await run({ seed, iterations: 39, proposer: 'mutator' })).best)),
      );
      expect(tpe).toBeLessThan(mutator);
    },
  );

  it(
    'the baseline row does not join the model by default: how well the start ' +
      'config scores does not change what is evaluated (useBaseline: true lets ' +
      'it in)',
    async () => {
      const isStart = (c: Config) => Object.keys(space).every((k) => c[k] === start[k]);
      const lucky = (c: Config) => (isStart(c) ? -10 : loss(c));
      const unlucky = (c: Config) => (isStart(c) ? 10 : loss(c));
      const a = await run({ seed: 2, iterations: 20, f: lucky });
      const b = await run({ seed: 2, iterations: 20, f: unlucky });
      expect(a.evaluated).toEqual(b.evaluated);
      const c = await run({ seed: 2, iterations: 20, f: lucky, tpe: { useBaseline: true } });
      const d = await run({ seed: 2, iterations: 20, f: unlucky, tpe: { useBaseline: true } });
      expect(c.evaluated).not.toEqual(d.evaluated);
    },
  );

  it(
    'per-parameter (univariate) proposals move each parameter towards its ' +
      'good rows: on a sum of per-parameter bowls every proposal after the ' +
      'design samples the good region more',
    async () => {
      const f = (c: Config) =>
        (Math.log10(c.lr as number) + 2.5) ** 2 +
        ((c.layers as number) - 5) ** 2 / 4 +
        (c.optimizer === 'adam' ? 0 : 1);
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
    },
  );

  it(
    'a scored refinement step proposes the local move the model rates best: ' +
      'with several moves per step (refineCandidates 8) the refinements score ' +
      'better than with the first move (refineCandidates 1), summed over 5 ' +
      'seeds',
    async () => {
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
    },
  );

  it(
    'the default GP ranking (surrogate gp) ends lower than l/g ranking ' +
      '(surrogate parzen) on a smooth continuous objective (a rotated valley): ' +
      'summed best loss over 5 seeds, 30 evaluations',
    async () => {
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
    },
  );
});
