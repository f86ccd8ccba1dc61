import { type PruneOptions, type Pruner } from '@loop/core';
import { intermediatePatternProblem, type IntermediatePattern } from '@loop/core/harness';
import {
  hyperbandPruner,
  incumbentCurvePruner,
  medianPruner,
  nonFinitePruner,
  patiencePruner,
  successiveHalvingPruner,
} from '@loop/core/policies';
import { z } from 'zod';

/** zod schema of the `intermediate: { pattern, pollMs }` block (issue 27). */
export const intermediateSchema = z
  .object({
    pattern: z
      .string()
      .min(1)
      .superRefine((p, ctx) => {
        const problem = intermediatePatternProblem(p);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .describe(
        'A regex matched on each new line of the run log while the run goes on; ' +
          'group 1 is the step, group 2 the value (nan and inf allowed), e.g. ' +
          '"^step (\\\\d+) .*val_bpc ([\\\\w.+-]+)".',
      ),
    pollMs: z
      .number()
      .int('must be a whole number of ms')
      .positive('must be at least 1 ms (how often the log is read)')
      .default(200)
      .describe('How often the log is read for new lines, in ms. Default 200.'),
  })
  .strict();

const warmupSteps = z.number().nonnegative().default(0).describe('Reports before this step never prune. Default 0.');
const prunerSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z
        .literal('incumbent')
        .describe("Prune a run worse than the incumbent's curve at the same step by more than margin."),
      margin: z
        .number()
        .nonnegative()
        .default(0.05)
        .describe('How much worse than the incumbent a run may be, as a fraction of its value. Default 0.05.'),
      warmupSteps,
    })
    .strict(),
  z
    .object({
      type: z
        .literal('median')
        .describe("Prune a run worse than the median of earlier runs at the same step (Optuna's MedianPruner)."),
      minRuns: z
        .number()
        .int()
        .min(1)
        .default(5)
        .describe('Earlier runs that must have reached the step first. Default 5.'),
      warmupSteps,
    })
    .strict(),
  z
    .object({
      type: z.literal('patience').describe('Prune a run whose own best did not improve in its last patience reports.'),
      patience: z.number().int().min(1).describe('Reports in a row without an improvement.'),
      minDelta: z
        .number()
        .nonnegative()
        .default(0)
        .describe('The least change that counts as an improvement. Default 0.'),
      warmupSteps,
    })
    .strict(),
  z
    .object({ type: z.literal('non-finite').describe('Prune a run as soon as it reports NaN or an infinite value.') })
    .strict(),
  z
    .object({
      type: z
        .literal('successive-halving')
        .describe(
          'ASHA: a run goes on past a rung (minStep x eta^k) only in the top 1/eta of the runs that reached it.',
        ),
      minStep: z.number().positive().describe('The first rung, in report steps.'),
      reductionFactor: z.number().min(2).default(3).describe('eta. Default 3.'),
      minEarlyStoppingRate: z
        .number()
        .int()
        .nonnegative()
        .default(0)
        .describe('s: the first rung is at minStep x eta^s. Default 0.'),
    })
    .strict(),
  z
    .object({
      type: z
        .literal('hyperband')
        .describe(
          'Hyperband: brackets of successive halving with first rungs minStep x ' +
            'eta^b; iteration n runs in bracket n mod brackets.',
        ),
      minStep: z.number().positive().describe('The smallest budget, in report steps.'),
      maxStep: z.number().positive().describe('The full budget, in report steps.'),
      reductionFactor: z.number().min(2).default(3).describe('eta. Default 3.'),
    })
    .strict()
    .refine((p) => p.maxStep > p.minStep, { message: 'maxStep must be above minStep', path: ['maxStep'] }),
]);

/** zod schema of the `prune: { pruners, steps, enabled }` block (issue 27). */
export const pruneSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe('Turn pruning off without removing the block (loop run --no-prune). Default true.'),
    pruners: z
      .array(prunerSchema)
      .min(1, 'name at least one pruner')
      .default([{ type: 'non-finite' }, { type: 'incumbent', margin: 0.05, warmupSteps: 0 }])
      .describe(
        'Checked in order on each report; the first that says prune stops the ' +
          'run: { type: incumbent | median | patience | non-finite | ' +
          'successive-halving | hyperband, ... }. Default non-finite, then ' +
          'incumbent with margin 0.05.',
      ),
    steps: z
      .number()
      .positive()
      .optional()
      .describe('The last step of a full run, for the row\'s description ("pruned at step 800 of 3000").'),
  })
  .strict();

/** The core pruner of one configured entry. */
function prunerOf(p: z.output<typeof prunerSchema>): Pruner {
  switch (p.type) {
    case 'incumbent':
      return incumbentCurvePruner({ margin: p.margin, warmupSteps: p.warmupSteps });
    case 'median':
      return medianPruner({ minRuns: p.minRuns, warmupSteps: p.warmupSteps });
    case 'patience':
      return patiencePruner({ patience: p.patience, minDelta: p.minDelta, warmupSteps: p.warmupSteps });
    case 'non-finite':
      return nonFinitePruner();
    case 'successive-halving':
      return successiveHalvingPruner({
        minStep: p.minStep,
        reductionFactor: p.reductionFactor,
        minEarlyStoppingRate: p.minEarlyStoppingRate,
      });
    case 'hyperband':
      return hyperbandPruner({ minStep: p.minStep, maxStep: p.maxStep, reductionFactor: p.reductionFactor });
  }
}

/**
 * The auto-iterate options of a config's `intermediate` and `prune` blocks: `{}` when there is no
 * pattern, or pruning is off (`enabled: false`, `--no-prune`: the reports are still recorded).
 */
export function pruneOptionsOf(config: {
  intermediate?: z.output<typeof intermediateSchema> | undefined;
  prune?: z.output<typeof pruneSchema> | undefined;
}): { intermediate?: IntermediatePattern; prune?: PruneOptions } {
  if (!config.intermediate) return {};
  const intermediate = { pattern: config.intermediate.pattern, pollMs: config.intermediate.pollMs };
  if (!config.prune || !config.prune.enabled) return { intermediate };
  return {
    intermediate,
    prune: {
      pruners: config.prune.pruners.map(prunerOf),
      ...(config.prune.steps !== undefined ? { steps: config.prune.steps } : {}),
    },
  };
}
