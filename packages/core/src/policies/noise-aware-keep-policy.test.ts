import { describe, expect, it } from 'vitest';
import { isLoopError } from '../contracts/errors.js';
import type { KeepInput } from '../contracts/keep-policy.js';
import { lookAlpha } from './noise-aware-keep-policy-spending.js';
import { createNoiseAwareKeepPolicy } from './noise-aware-keep-policy.js';
import { createSeededRandom } from '../stats/random.js';
import type { Direction, RandomSource } from '../contracts/types.js';

function gaussian(random: RandomSource): number {
  return Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
}

/** A keep input whose `sample()` draws N(trueValue, sd) from a seeded source, like the engine's. */
function noisyInput(opts: {
  seed: number;
  candidateMean: number;
  incumbentMean: number;
  sd: number;
  incumbentN?: number;
  direction?: Direction;
  crashAt?: number;
}) {
  const r = createSeededRandom(opts.seed);
  const draw = (m: number) => m + opts.sd * gaussian(r);
  const incumbentSamples = Array.from({ length: opts.incumbentN ?? 5 }, () => draw(opts.incumbentMean));
  const candidateSamples = [draw(opts.candidateMean)];
  let calls = 0;
  const input: KeepInput = {
    candidate: candidateSamples[0]!,
    incumbent: incumbentSamples.reduce((a, b) => a + b, 0) / incumbentSamples.length,
    direction: opts.direction ?? 'minimize',
    candidateSamples,
    incumbentSamples,
    sample: async () => {
      calls += 1;
      if (opts.crashAt === calls) return undefined;
      const x = draw(opts.candidateMean);
      candidateSamples.push(x);
      return x;
    },
  };
  return { input, calls: () => calls, candidateSamples };
}

describe('noise-aware keep policy', () => {
  it('keeps an improvement of 5 σ once minSamples are in, stopping early (seed 1, welch)', async () => {
    const { input, candidateSamples } = noisyInput({ seed: 1, candidateMean: 95, incumbentMean: 100, sd: 1 });
    const d = await createNoiseAwareKeepPolicy().decide(input);
    expect(d.keep).toBe(true);
    expect(candidateSamples).toHaveLength(4); // minSamples default
    // The first look (4 of at most 10 samples) tests at its O'Brien-Fleming share of alpha = 0.025.
    const level = lookAlpha('obrien-fleming', 0.025, 4, 4, 10);
    expect(d.evidence).toMatchObject({
      test: 'welch',
      confidence: 1 - 2 * level,
      stoppedEarly: true,
      candidate: { n: 4 },
      incumbent: { n: 5 },
    });
    expect(d.evidence!.interval![0]).toBeGreaterThan(0);
    expect(d.evidence!.p).toBeLessThan(level);
    expect(d.reason).toMatch(/beyond the noise \(99\.9\d*% CI \[/);
  });

  it(
    'reverts a null change whose first run looks better but whose gain stays ' +
      'within the noise (seeds 1-40: at most 1 false keep)',
    async () => {
      let keeps = 0;
      for (let seed = 1; seed <= 40; seed++) {
        const { input } = noisyInput({ seed, candidateMean: 100, incumbentMean: 100, sd: 1 });
        if ((await createNoiseAwareKeepPolicy().decide(input)).keep) keeps += 1;
      }
      expect(keeps).toBeLessThanOrEqual(1);
    },
  );

  it(
    'strict improvement keeps about half of the same null changes (seeds ' + '1-40), the problem this policy solves',
    async () => {
      const { strictImprovement } = await import('../contracts/keep-policy.js');
      let keeps = 0;
      for (let seed = 1; seed <= 40; seed++) {
        const { input } = noisyInput({ seed, candidateMean: 100, incumbentMean: 100, sd: 1 });
        if ((await strictImprovement().decide(input)).keep) keeps += 1;
      }
      expect(keeps).toBeGreaterThan(12);
    },
  );

  it('futility: a first run no better than the incumbent mean is reverted without re-running (seed 4)', async () => {
    const { input, calls } = noisyInput({ seed: 4, candidateMean: 110, incumbentMean: 100, sd: 1 });
    const d = await createNoiseAwareKeepPolicy().decide(input);
    expect(d.keep).toBe(false);
    expect(calls()).toBe(0);
    expect(d.reason).toMatch(/^no gain/);
  });

  it(
    'adaptive sampling stops at maxSamples when the verdict stays unclear ' + '(seed 7, gain 0.3 σ, futility off)',
    async () => {
      const { input, candidateSamples } = noisyInput({ seed: 7, candidateMean: 99.7, incumbentMean: 100, sd: 1 });
      const d = await createNoiseAwareKeepPolicy({ futilityAfter: false, maxSamples: 6 }).decide(input);
      expect(d.keep).toBe(false);
      expect(candidateSamples).toHaveLength(6);
      expect(d.reason).toMatch(/within the noise/);
      expect(d.evidence?.stoppedEarly).toBe(false);
    },
  );

  it('a clearly worse candidate is reverted as soon as minSamples are in (seed 2, futility off)', async () => {
    const { input, candidateSamples } = noisyInput({ seed: 2, candidateMean: 105, incumbentMean: 100, sd: 1 });
    const d = await createNoiseAwareKeepPolicy({ futilityAfter: false }).decide(input);
    expect(d.keep).toBe(false);
    expect(d.reason).toMatch(/^clearly worse/);
    expect(candidateSamples).toHaveLength(4);
  });

  it('a crashed repeat reverts the candidate (a flaky candidate is not kept) (seed 1)', async () => {
    const { input } = noisyInput({ seed: 1, candidateMean: 95, incumbentMean: 100, sd: 1, crashAt: 2 });
    const d = await createNoiseAwareKeepPolicy().decide(input);
    expect(d.keep).toBe(false);
    expect(d.reason).toMatch(/repeat run crashed/);
  });

  it('a seed-only change is reverted without sampling', async () => {
    const { input, calls } = noisyInput({ seed: 1, candidateMean: 95, incumbentMean: 100, sd: 1 });
    const d = await createNoiseAwareKeepPolicy().decide({ ...input, seedOnly: true });
    expect(d).toMatchObject({ keep: false, reason: expect.stringMatching(/seed-only/) });
    expect(calls()).toBe(0);
  });

  it('maximize direction: a higher mean is the improvement (seed 3)', async () => {
    const { input } = noisyInput({ seed: 3, candidateMean: 0.9, incumbentMean: 0.8, sd: 0.01, direction: 'maximize' });
    const d = await createNoiseAwareKeepPolicy().decide(input);
    expect(d.keep).toBe(true);
    expect(d.evidence!.difference).toBeGreaterThan(0.05);
  });

  it('bootstrap: a seeded percentile interval keeps a clear gain and is reproducible (seed 5)', async () => {
    const run = async () => {
      const { input } = noisyInput({ seed: 5, candidateMean: 95, incumbentMean: 100, sd: 1 });
      return createNoiseAwareKeepPolicy({ test: 'bootstrap', random: createSeededRandom(9) }).decide(input);
    };
    const a = await run();
    expect(a.keep).toBe(true);
    expect(a.evidence?.test).toBe('bootstrap');
    expect(await run()).toEqual(a);
  });

  it('without noise (all samples equal) the exact difference decides', async () => {
    const samples = [5];
    const d = await createNoiseAwareKeepPolicy({ minSamples: 2 }).decide({
      candidate: 5,
      incumbent: 6,
      direction: 'minimize',
      candidateSamples: samples,
      incumbentSamples: [6, 6, 6],
      sample: async () => (samples.push(5), 5),
    });
    expect(d).toMatchObject({ keep: true, evidence: { test: 'exact', difference: 1 } });
  });

  it('with a single incumbent sample the candidate variance stands in for it (df = n − 1)', async () => {
    const { input } = noisyInput({ seed: 1, candidateMean: 90, incumbentMean: 100, sd: 1, incumbentN: 1 });
    const d = await createNoiseAwareKeepPolicy().decide(input);
    expect(d.keep).toBe(true);
    expect(d.evidence?.df).toBe(d.evidence!.candidate.n - 1);
  });

  it('outside the engine (no sample function) it decides on the samples it was given', async () => {
    const d = await createNoiseAwareKeepPolicy().decide({ candidate: 0.99, incumbent: 1, direction: 'minimize' });
    expect(d.keep).toBe(false);
    expect(d.reason).toMatch(/cannot sample/);
  });

  it('invalid options are CONFIG_INVALID naming the field', () => {
    try {
      createNoiseAwareKeepPolicy({ confidence: 1.5, minSamples: 5, maxSamples: 3 });
      expect.unreachable();
    } catch (error) {
      expect(isLoopError(error, 'CONFIG_INVALID')).toBe(true);
      expect((error as Error).message).toMatch(/confidence/);
    }
  });

  describe('paired mode (wilcoxon on per-instance dimensions)', () => {
    const instances = (r: RandomSource, shift: number) =>
      Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`q${i}`, i * 0.1 + shift + 0.05 * gaussian(r)]));

    it('keeps a candidate better on most instances (seed 8)', async () => {
      const r = createSeededRandom(8);
      const inc = [instances(r, 0), instances(r, 0), instances(r, 0)];
      const candDims = [instances(r, -0.1)];
      const mean = (d: Record<string, number>) => Object.values(d).reduce((a, b) => a + b, 0) / 30;
      const samples = [mean(candDims[0]!)];
      const d = await createNoiseAwareKeepPolicy({ test: 'wilcoxon', minSamples: 1 }).decide({
        candidate: samples[0]!,
        incumbent: 0,
        direction: 'minimize',
        candidateSamples: samples,
        incumbentSamples: inc.map(mean),
        candidateDimensions: candDims,
        incumbentDimensions: inc,
        sample: async () => {
          const x = instances(r, -0.1);
          candDims.push(x);
          samples.push(mean(x));
          return mean(x);
        },
      });
      expect(d.keep).toBe(true);
      expect(d.evidence).toMatchObject({ test: 'wilcoxon', pairs: 30 });
    });

    it(
      'rejects early, after the first run, once the candidate is clearly ' + 'worse on the instances (seed 8)',
      async () => {
        const r = createSeededRandom(8);
        const inc = [instances(r, 0), instances(r, 0), instances(r, 0)];
        const candDims = [instances(r, 0.1)];
        let calls = 0;
        const d = await createNoiseAwareKeepPolicy({ test: 'wilcoxon', futilityAfter: false }).decide({
          candidate: 1.5,
          incumbent: 1.45,
          direction: 'minimize',
          candidateSamples: [1.5],
          incumbentSamples: [1.45, 1.45, 1.45],
          candidateDimensions: candDims,
          incumbentDimensions: inc,
          sample: async () => {
            calls += 1;
            return 1.5;
          },
        });
        expect(d.keep).toBe(false);
        expect(d.reason).toMatch(/^clearly worse/);
        expect(calls).toBe(0);
      },
    );
  });
});
