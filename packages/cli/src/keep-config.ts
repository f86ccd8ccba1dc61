import { strictImprovement, type KeepPolicy } from '@loop/core';
import { createNoiseAwareKeepPolicy, minDelta } from '@loop/core/policies';
import { createSeededRandom } from '@loop/core/stats';
import { z } from 'zod';

import { KEEP_POLICIES } from './cli-constants.js';

export { KEEP_POLICIES };

/**
 * zod schema of the `keep:` block: which candidates are kept. `strict` (the default): strictly
 * better, equal reverts. `min-delta`: better by more than `minDelta`. `noise-aware` (core's
 * `createNoiseAwareKeepPolicy`): the baseline is run `baselineRepeats` times to measure the
 * noise, a candidate is re-run up to `maxSamples` times and kept only when a `test` at `confidence`
 * says it is better (see docs/noise-aware-keep.md).
 */
export const keepSchema = z
  .object({
    policy: z.enum(KEEP_POLICIES).default('strict').describe('strict (default), min-delta or noise-aware.'),
    minDelta: z
      .number()
      .nonnegative()
      .optional()
      .describe('min-delta: the improvement a keep needs, in metric units. Required for min-delta.'),
    baselineRepeats: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Baseline runs to measure the noise floor. Default 1 (noise-aware: minSamples).'),
    confidence: z
      .number()
      .gt(0.5)
      .lt(1)
      .default(0.95)
      .describe('noise-aware: the confidence of the test. Default 0.95.'),
    minSamples: z
      .number()
      .int()
      .min(1)
      .default(4)
      .describe('noise-aware: runs of a candidate before deciding. Default 4.'),
    maxSamples: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(10)
      .describe('noise-aware: most runs of a candidate. Default 10.'),
    test: z
      .enum(['welch', 'bootstrap', 'wilcoxon'])
      .default('welch')
      .describe('noise-aware: the statistical test. Default welch.'),
    seed: z
      .number()
      .int()
      .nonnegative()
      .default(1)
      .describe('noise-aware: seed of the bootstrap resampling. Default 1.'),
  })
  .strict()
  .superRefine((k, ctx) => {
    if (k.policy === 'min-delta' && k.minDelta === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['minDelta'],
        message: 'policy min-delta needs minDelta (e.g. minDelta: 0.01)',
      });
    if (k.policy !== 'min-delta' && k.minDelta !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['minDelta'],
        message: `minDelta is for policy min-delta, not ${k.policy}`,
      });
    if (k.maxSamples < k.minSamples)
      ctx.addIssue({ code: 'custom', path: ['maxSamples'], message: 'maxSamples must be at least minSamples' });
  });

/** A validated `keep:` block. */
export type KeepConfig = z.output<typeof keepSchema>;

/**
 * The keep policy and baseline repeats `createAutoIterate` takes for a `keep:` block (none: strict, 1 baseline run).
 */
export function keepOptions(keep: KeepConfig | undefined): { keepPolicy?: KeepPolicy; baselineRepeats?: number } {
  if (!keep) return {};
  const repeats = keep.baselineRepeats !== undefined ? { baselineRepeats: keep.baselineRepeats } : {};
  switch (keep.policy) {
    case 'strict':
      return { keepPolicy: strictImprovement(), ...repeats };
    case 'min-delta':
      return { keepPolicy: minDelta(keep.minDelta ?? 0), ...repeats };
    case 'noise-aware':
      return {
        keepPolicy: createNoiseAwareKeepPolicy({
          confidence: keep.confidence,
          minSamples: keep.minSamples,
          maxSamples: keep.maxSamples,
          test: keep.test,
          random: createSeededRandom(keep.seed),
        }),
        baselineRepeats: keep.baselineRepeats ?? keep.minSamples,
      };
  }
}
