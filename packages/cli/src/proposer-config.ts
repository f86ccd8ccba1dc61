import { hyperparameterMutatorOptionsSchema, tpeParameterSchema } from '@loop/core/proposers';
import { z } from 'zod';
import { sandboxMode, writablePaths } from './sandbox-config.js';

/** The mutator's own rules for its search space (max > min, log needs min > 0, ...), run at config-load time. */
const mutatorSpaceRules = hyperparameterMutatorOptionsSchema.shape.space;

const numberRange = z
  .object({
    min: z.number().describe('Smallest value.'),
    max: z.number().describe('Largest value.'),
    scale: z.enum(['linear', 'log']).optional().describe('Step on a linear or a log scale. Default linear.'),
    integer: z.boolean().optional().describe('Round to whole numbers. Default false.'),
  })
  .strict();
const valueList = z
  .object({
    values: z
      .array(z.union([z.string(), z.number(), z.boolean()]))
      .min(2, 'needs at least 2 values')
      .describe('The values to choose from, in order.'),
  })
  .strict();

/** zod schema of the `proposer: { type: 'mutator', ... }` block. */
export const mutatorProposerSchema = z
  .object({
    type: z.literal('mutator'),
    file: z.string().min(1).describe('The JSON file the mutator edits (one of targetFiles), relative to dir.'),
    space: z
      .record(z.string(), z.union([valueList, numberRange]))
      .refine((s) => Object.keys(s).length > 0, 'space must name at least one parameter')
      .superRefine((space, ctx) => {
        if (Object.keys(space).length === 0) return; // reported above
        const result = mutatorSpaceRules.safeParse(space);
        if (result.success) return;
        for (const issue of result.error.issues)
          ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
      })
      .describe('The parameters it may change: { values: [...] } or { min, max, scale?, integer? }.'),
    seed: z.number().int().nonnegative().default(1).describe('Seed of the random source. Default 1.'),
  })
  .strict();

const tpeWhen = z
  .record(z.string(), z.array(z.union([z.string(), z.number(), z.boolean()])).min(1))
  .optional()
  .describe('Active only while each named parameter holds one of these values, e.g. { optimizer: [sgd] }.');

/** zod schema of the `proposer: { type: 'tpe', ... }` block (the default when a parameter space is given). */
export const tpeProposerSchema = z
  .object({
    type: z.literal('tpe'),
    file: z
      .string()
      .min(1)
      .describe('The JSON or YAML (.yaml/.yml) config file it edits (one of targetFiles), relative to dir.'),
    space: z
      .record(
        z.string(),
        z.union([
          valueList.extend({ when: tpeWhen }),
          numberRange.extend({ when: tpeWhen }),
          z
            .object({
              fixed: z.union([z.string(), z.number(), z.boolean()]).describe('Always written as this value.'),
              when: tpeWhen,
            })
            .strict(),
        ]),
      )
      .refine((s) => Object.keys(s).length > 0, 'space must name at least one parameter')
      .superRefine((space, ctx) => {
        for (const [name, p] of Object.entries(space)) {
          const result = tpeParameterSchema.safeParse(p);
          if (!result.success)
            for (const issue of result.error.issues)
              ctx.addIssue({ code: 'custom', message: issue.message, path: [name, ...issue.path] });
        }
      })
      .describe(
        'The parameters it searches: { values: [...] }, { min, max, scale?, ' +
          'integer? } or { fixed }, each with an optional when.',
      ),
    seed: z.number().int().nonnegative().default(1).describe('Seed of the proposals. Default 1.'),
    costMetric: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A metric named in metrics: that is each finished run's cost, e.g. " +
          'training_seconds: the model then ranks candidates by expected improvement per ' +
          'predicted cost (cheaper configs first at equal promise). Default none.',
      ),
  })
  .strict();

/** zod schema of the `proposer: { type: 'agent', ... }` block. */
export const agentProposerSchema = z
  .object({
    type: z.literal('agent'),
    command: z
      .string()
      .trim()
      .min(1, 'command must not be empty')
      .describe('The agent CLI, run with /bin/sh -c; it gets the prompt on stdin (e.g. "claude -p").'),
    goal: z.string().trim().min(1, 'goal must not be empty').describe('What the loop optimises, in one paragraph.'),
    timeoutS: z.number().positive().default(600).describe('Hard timeout of one agent call in seconds. Default 600.'),
    sandbox: sandboxMode
      .default('auto')
      .describe(
        'Confine the agent with bubblewrap so it can write only targetFiles, a ' +
          'private /tmp and writable: auto (when bwrap works here, else a warning), ' +
          'bwrap (required: an error where it does not work), none. Default auto. ' +
          'Its /tmp is an empty tmpfs: the host /tmp is hidden from it (but for the ' +
          'workspace and writable paths under it).',
      ),
    writable: writablePaths,
    network: z
      .boolean()
      .default(true)
      .describe('Allow network inside the sandbox (an agent CLI calls its model API). Default true.'),
    notesMaxLines: z
      .number()
      .int()
      .positive()
      .default(40)
      .describe(
        'Notes from .loop/memory/notes.md ($LOOP_NOTES_FILE, which the agent may ' +
          'append to) carried into each prompt, newest first. Default 40.',
      ),
    notesMaxBytes: z
      .number()
      .int()
      .positive()
      .default(4096)
      .describe('Bytes of notes carried into each prompt; older whole lines beyond it are left out. Default 4096.'),
    discardedDiffs: z
      .number()
      .int()
      .nonnegative()
      .default(3)
      .describe(
        'The last n discarded (or crashed) candidates whose diffs go into each ' +
          'prompt, from refs/loop/discarded/<n>; 0 for none. Default 3.',
      ),
  })
  .strict();
