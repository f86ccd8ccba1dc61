import { describe, expect, it } from 'vitest';
import type { KeepInput } from '../contracts/keep-policy.js';
import { lookAlpha, normalQuantile } from './noise-aware-keep-policy-spending.js';
import { createNoiseAwareKeepPolicy } from './noise-aware-keep-policy.js';
import { createSeededRandom } from '../stats/random.js';

describe('noise-aware keep policy: repeated looks (alpha spending)', () => {
  it(
    'the per-look levels sum to alpha over looks minSamples..maxSamples; ' +
      "O'Brien-Fleming is strictest first, none tests every look at alpha",
    () => {
      for (const spending of ['obrien-fleming', 'pocock'] as const) {
        const levels = Array.from({ length: 7 }, (_, i) => lookAlpha(spending, 0.025, 4 + i, 4, 10));
        expect(levels.reduce((a, b) => a + b, 0)).toBeCloseTo(0.025, 12);
        expect(levels.every((l) => l > 0)).toBe(true);
      }
      expect(lookAlpha('obrien-fleming', 0.025, 4, 4, 10)).toBeLessThan(lookAlpha('obrien-fleming', 0.025, 10, 4, 10));
      expect(lookAlpha('none', 0.025, 4, 4, 10)).toBe(0.025);
      expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    },
  );

  for (const [name, draw] of [
    ['Bernoulli(0.5)', (u: number) => (u < 0.5 ? 1 : 0)],
    ['Uniform(0,1)', (u: number) => u],
  ] as const) {
    it(
      `on ${name} pure noise the false-keep rate per decision is at most alpha ` +
        `= 0.025 (1,000 seeded decisions, incumbent of 5 samples)`,
      async () => {
        const policy = createNoiseAwareKeepPolicy();
        const r = createSeededRandom(17);
        let kept = 0;
        for (let i = 0; i < 1000; i++) {
          const incumbentSamples = Array.from({ length: 5 }, () => draw(r.next()));
          const candidateSamples = [draw(r.next())];
          const d = await policy.decide({
            candidate: candidateSamples[0]!,
            incumbent: incumbentSamples.reduce((a, b) => a + b, 0) / 5,
            direction: 'maximize',
            candidateSamples,
            incumbentSamples,
            sample: async () => {
              const x = draw(r.next());
              candidateSamples.push(x);
              return x;
            },
          } as KeepInput);
          if (d.keep) kept++;
        }
        expect(kept / 1000).toBeLessThanOrEqual(0.025);
      },
    );
  }

  it('without spending (the old rule) the same Uniform(0,1) noise is kept more often than with it', async () => {
    const rate = async (spending: 'obrien-fleming' | 'none') => {
      const policy = createNoiseAwareKeepPolicy({ spending });
      const r = createSeededRandom(5);
      let kept = 0;
      for (let i = 0; i < 1000; i++) {
        const incumbentSamples = Array.from({ length: 5 }, () => r.next());
        const candidateSamples = [r.next()];
        const d = await policy.decide({
          candidate: candidateSamples[0]!,
          incumbent: 0,
          direction: 'maximize',
          candidateSamples,
          incumbentSamples,
          sample: async () => {
            const x = r.next();
            candidateSamples.push(x);
            return x;
          },
        } as KeepInput);
        if (d.keep) kept++;
      }
      return kept;
    };
    expect(await rate('obrien-fleming')).toBeLessThan(await rate('none'));
  });
});
