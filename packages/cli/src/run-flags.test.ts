import { describe, expect, it } from 'vitest';
import { parseRunFlags } from '../test/fixtures/run-flags.js';
import { starterConfig } from './starter-config.js';
import { keepOptions } from './keep-config.js';
import { LOOP_CONFIG_KIND, parseConfigText } from './load-config.js';
import { applyRunFlags } from './apply-run-flags.js';

const flags = parseRunFlags;

const base = () => parseConfigText(starterConfig(), 'loop.config.yaml');

describe('loop run flags override the config', () => {
  it('both --x=y and --x y set the field, for numbers, strings and the keep policy', () => {
    const c = applyRunFlags(
      LOOP_CONFIG_KIND,
      base(),
      flags('--max-iterations=3', '--plateau', '4', '--tag=nightly', '--keep', 'min-delta', '--min-delta=0.5'),
      'loop.config.yaml',
    );
    expect(c).toMatchObject({
      maxIterations: 3,
      plateau: 4,
      tag: 'nightly',
      keep: { policy: 'min-delta', minDelta: 0.5 },
    });
    expect(base().maxIterations).toBe(20); // the file's value, untouched without flags
    expect(
      applyRunFlags(LOOP_CONFIG_KIND, base(), flags('--allow-dirty', '--time-budget-s', '60'), 'f').allowDirty,
    ).toBe(true);
  });

  it('the merged config is validated again: a flag breaking a rule is CONFIG_INVALID naming the flag', () => {
    expect(() => applyRunFlags(LOOP_CONFIG_KIND, base(), flags('--keep=min-delta'), 'loop.config.yaml')).toThrow(
      /--keep \(keep\.minDelta\): policy min-delta needs minDelta/,
    );
    expect(() => applyRunFlags(LOOP_CONFIG_KIND, base(), flags('--time-budget-s=900'), 'loop.config.yaml')).toThrow(
      /killTimeoutS must be at least timeBudgetS/,
    );
    expect(() => applyRunFlags(LOOP_CONFIG_KIND, base(), flags('--max-iterations', 'many'), 'f')).toThrow(
      '--max-iterations: "many" is not a whole number',
    );
    expect(() => flags('--keep', 'lucky')).toThrow(/Allowed choices are strict, min-delta, noise-aware/);
  });

  it("the keep block maps onto core's policies: strict, min-delta, noise-aware with baseline repeats", () => {
    expect(keepOptions(undefined)).toEqual({});
    expect(
      keepOptions({ policy: 'strict', confidence: 0.95, minSamples: 4, maxSamples: 10, test: 'welch', seed: 1 })
        .keepPolicy?.name,
    ).toBe('strict-improvement');
    expect(
      keepOptions({
        policy: 'min-delta',
        minDelta: 0.25,
        confidence: 0.95,
        minSamples: 4,
        maxSamples: 10,
        test: 'welch',
        seed: 1,
      }).keepPolicy?.name,
    ).toBe('min-delta(0.25)');
    const noisy = keepOptions(applyRunFlags(LOOP_CONFIG_KIND, base(), flags('--keep', 'noise-aware'), 'f').keep);
    expect(noisy.keepPolicy?.name).toBe('noise-aware(welch, 0.95)');
    expect(noisy.baselineRepeats).toBe(4);
    expect(
      keepOptions(
        applyRunFlags(LOOP_CONFIG_KIND, base(), flags('--keep', 'noise-aware', '--baseline-repeats=6'), 'f').keep,
      ).baselineRepeats,
    ).toBe(6);
  });
});
