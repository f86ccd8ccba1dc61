import { z } from 'zod';
import type { ConfigKind } from '../load-config.js';

const relativePath = z.string().min(1);
const shellCommand = (what: string) => z.string().trim().min(1, `${what} must not be empty`);

/**
 * zod schema of a `loop` config with `preset: autoresearch`: one seed 002 pass (AR-1 design or
 * AR-2 function) of `@loop/autoresearch`'s `runPass`, every piece a shell command (run with
 * `/bin/sh -c` in `dir`, in its own process group): the test gate, the reflection scorer and the
 * proposer. Paths are relative to `dir`, and `dir` to the config file.
 */
export const autoresearchPresetSchema = z
  .object({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors.'),
    preset: z.literal('autoresearch').describe('The preset: a seed 002 autoresearch pass.'),
    dir: z
      .string()
      .min(1)
      .default('.')
      .describe('The workspace (a git repository root), relative to the config file. Default ".".'),
    taskId: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'taskId may hold letters, digits, ".", "_" and "-" only')
      .default('T-1')
      .describe(
        'The task id: the pass writes to .aid/pipeline/autoresearch/<taskId>/ (results.tsv, snapshots). Default T-1.',
      ),
    mode: z
      .enum(['design', 'function'])
      .default('function')
      .describe(
        'design (AR-1: the reflection dimensions only) or function (AR-2: the ' +
          'test gate, then the reflection quality). Default function.',
      ),
    files: z
      .array(relativePath)
      .min(1)
      .optional()
      .describe("The mutable files. Default: the uncommitted files from git status (seed 002: the task's change)."),
    rubricFiles: z
      .array(relativePath)
      .min(1, 'name the rubric files (criteria YAML, the reflection agent prompt)')
      .describe('The harness-defining files, fingerprinted: a change halts the pass as rubric-tampered.'),
    harnessFiles: z
      .array(relativePath)
      .default([])
      .describe(
        "The harness's own scripts (test runner, reflection tool): a change halts the pass as harness-tampered.",
      ),
    gate: z
      .object({
        command: shellCommand('gate.command').describe(
          'The test command; its output carries a "Tests  N passed (M)" line ' +
            '(vitest form) and coverage/coverage-summary.json.',
        ),
        minCoveragePct: z
          .number()
          .min(0)
          .max(100)
          .default(0)
          .describe('Line coverage below this makes the composite 0. Default 0.'),
        timeoutS: z.number().positive().default(600).describe('Hard timeout in seconds. Default 600.'),
      })
      .strict()
      .optional()
      .describe('The Tier-1 test gate (function mode only, required there).'),
    reflection: z
      .object({
        command: shellCommand('reflection.command').describe(
          'The reflection command: gets the prompt on stdin, prints one JSON line {"scores": {"<dimension>": <0-10>}}.',
        ),
        promptFile: relativePath
          .default('.claude/agents/reflection-agent.md')
          .describe(
            "The reflection agent's prompt, relative to dir (sent on stdin). Default " +
              '.claude/agents/reflection-agent.md.',
          ),
        dimensions: z
          .array(z.string().min(2))
          .min(1)
          .optional()
          .describe('The dimensions it scores. Default: quality (function), the four AR-1 dimensions (design).'),
        timeoutS: z.number().positive().default(600).describe('Hard timeout in seconds. Default 600.'),
      })
      .strict()
      .describe('The reflection scorer.'),
    proposer: z
      .object({
        command: shellCommand('proposer.command').describe(
          'Makes ONE focused edit of the mutable files per call (e.g. "claude ' +
            '-p"); gets the prompt on stdin, LOOP_IDEA and LOOP_ROUND in its ' +
            'environment.',
        ),
        planCommand: shellCommand('proposer.planCommand')
          .optional()
          .describe(
            'Optional: prints the idea of the next edit as its last output line (it ' +
              "must not edit files); becomes the row's description and LOOP_IDEA. " +
              'Default: "edit <iteration>".',
          ),
        goal: shellCommand('proposer.goal').describe('What the pass improves, in one paragraph (in the prompt).'),
        timeoutS: z.number().positive().default(600).describe('Hard timeout of one call in seconds. Default 600.'),
      })
      .strict()
      .describe('The proposer: shell commands, no code.'),
    maxIterations: z.number().int().positive().optional().describe('Iterations of the pass (seed 002 default 10).'),
    maxConsecutiveReverts: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Stop after this many reverts in a row (seed 002 default 5).'),
    internalRounds: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Function mode: apply/refine rounds per iteration (seed 002 default 2).'),
    kpiTarget: z
      .number()
      .min(0)
      .max(10)
      .optional()
      .describe('The composite that ends the pass as target-met (seed 002 default 9.5).'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.mode === 'function' && !c.gate)
      ctx.addIssue({
        code: 'custom',
        path: ['gate'],
        message: 'function mode needs the test gate: gate: { command: "npm test" }',
      });
    if (c.mode === 'design' && c.internalRounds !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['internalRounds'],
        message: 'internalRounds is a function-mode setting; AR-1 design does one apply per iteration',
      });
  });

/** A validated `preset: autoresearch` config, defaults applied. */
export type AutoresearchPresetConfig = z.output<typeof autoresearchPresetSchema>;

/** The JSON Schema of an autoresearch preset config. */
export function autoresearchPresetJsonSchema(): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(autoresearchPresetSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>),
    title: 'loop config (preset autoresearch)',
  };
}

/** The config kind of `preset: autoresearch`, for the shared loaders (`file:line` errors). */
export const AUTORESEARCH_CONFIG_KIND: ConfigKind<typeof autoresearchPresetSchema> = {
  schema: autoresearchPresetSchema,
  jsonSchema: autoresearchPresetJsonSchema,
};

/** The `config.autoresearch` object `resolvePassConfig` takes, from the preset's camelCase fields. */
export function passConfigInput(c: AutoresearchPresetConfig): Record<string, unknown> {
  const caps = {
    ...(c.maxIterations !== undefined ? { max_iterations: c.maxIterations } : {}),
    ...(c.maxConsecutiveReverts !== undefined ? { max_consecutive_reverts: c.maxConsecutiveReverts } : {}),
  };
  return {
    ...(c.kpiTarget !== undefined ? { kpi_target: c.kpiTarget } : {}),
    ...(c.mode === 'design'
      ? { ar_design: caps }
      : { ar_function: { ...caps, ...(c.internalRounds !== undefined ? { internal_rounds: c.internalRounds } : {}) } }),
  };
}
