import { z } from 'zod';
import { holdoutConfigSchema } from './holdout-config.js';
import { keepSchema } from './keep-config.js';
import { checksSchema } from './checks-config.js';
import {
  constraintIssues,
  constraintsSchema,
  costMetricIssues,
  metricPatternSchema,
  metricsSchema,
} from './metrics-config.js';
import { notifySchema } from './notify.js';
import { parallelSchema } from './parallel-config.js';
import { agentProposerSchema, mutatorProposerSchema, tpeProposerSchema } from './proposer-config.js';
import { intermediateSchema, pruneSchema } from './prune-config.js';
import { deferStagingAtSchema } from './defer-staging-config.js';
import { harnessSandboxSchema } from './sandbox-config.js';
import { stopConditionFields } from './stop-config.js';
import { targetSchema } from './target-config.js';

const relativePath = z.string().min(1);

/**
 * zod schema of a `loop` config file (preset `auto-iterate`). Fields map one to one onto
 * `createAutoIterate` options; paths are relative to `dir`, and `dir` to the config file.
 */
export const loopConfigSchema = z
  .object({
    $schema: z.string().optional().describe('The JSON Schema of this file, for editors.'),
    preset: z.literal('auto-iterate').default('auto-iterate').describe('The preset. Only "auto-iterate" for now.'),
    dir: z
      .string()
      .min(1)
      .default('.')
      .describe('The workspace (a git repository root), relative to the config file. Default ".".'),
    tag: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'tag may hold letters, digits, ".", "_" and "-" only')
      .optional()
      .describe(
        'The run tag; the run branch is auto-iterate/<tag>. Default: the UTC ' +
          'date and time of the run, e.g. "mar21-143005".',
      ),
    target: targetSchema
      .optional()
      .describe(
        "Seed 001's target: { type: skill | skill-full | memory | code, path }. " +
          'skill, skill-full and memory bring their built-in evaluator ' +
          '(targetFiles, runCommand and metricName come from it); results.tsv goes ' +
          "in the target's folder.",
      ),
    targetFiles: z
      .array(relativePath)
      .min(1, 'name at least one file the loop may modify')
      .optional()
      .describe('The files the loop may modify, relative to dir. Required without a target.'),
    readOnlyFiles: z
      .array(relativePath)
      .default([])
      .describe('Files that must never change (the evaluation), relative to dir.'),
    runCommand: z
      .string()
      .trim()
      .min(1, 'runCommand must not be empty')
      .optional()
      .describe(
        'The shell command that runs one experiment, e.g. "node train.mjs". ' +
          'Required without a target or for target type code; not allowed with a ' +
          'built-in evaluator.',
      ),
    metricName: z
      .string()
      .trim()
      .min(1, 'metricName must not be empty')
      .optional()
      .describe('The metric printed by the run as "<name>: <value>". Required without a target; score with one.'),
    direction: z
      .enum(['lower', 'higher'])
      .default('lower')
      .describe('Whether lower or higher is better. Default lower.'),
    pattern: metricPatternSchema
      .optional()
      .describe(
        'A regex with at most one group that extracts the metric, matched one ' +
          'log line at a time. Refused when it does not compile, has two groups, or ' +
          'nests a repeat inside a repeat (e.g. (a+)+). Default ' +
          '^<metricName>:\\s*(\\S+).',
      ),
    match: z
      .enum(['first', 'last'])
      .default('last')
      .describe(
        'Which matching log line counts when several match: last (default) or ' +
          'first. The program under edit writes to the same log; use metricFile for ' +
          'a channel it cannot forge.',
      ),
    metricFile: relativePath
      .optional()
      .describe(
        'A file (relative to dir) the read-only evaluator writes the metric line ' +
          'to after the program under edit has ended; read instead of the log, then ' +
          'deleted. See docs/write-your-own-harness.md.',
      ),
    fingerprintPaths: z
      .array(relativePath)
      .default([])
      .describe(
        'Folders git does not track that the evaluation depends on (e.g. ' +
          'node_modules), relative to dir: hashed by metadata into the harness ' +
          'fingerprint, so replacing or editing one stops the run ' +
          '(HARNESS_TAMPERED).',
      ),
    timeBudgetS: z
      .number()
      .positive()
      .default(300)
      .describe('Time budget per run in seconds (passed as LOOP_TIME_BUDGET_S). Default 300.'),
    killTimeoutS: z.number().positive().default(600).describe('Hard kill timeout per run in seconds. Default 600.'),
    ...stopConditionFields,
    proposer: z
      .discriminatedUnion('type', [tpeProposerSchema, mutatorProposerSchema, agentProposerSchema])
      .describe(
        'Who makes the edits: { type: tpe, file, space, seed } (model-based, the ' +
          'default for a parameter space), { type: mutator, file, space, seed } ' +
          '(one value per iteration) or { type: agent, command, goal }.',
      ),
    notify: notifySchema
      .optional()
      .describe(
        'Notifications: { command, on: [end, crash-streak, plateau], ' +
          'crashStreak, plateau, timeoutS }: the command runs at the end of the ' +
          'run, after crashStreak crashes in a row and after plateau iterations ' +
          'without a keep.',
      ),
    keep: keepSchema
      .optional()
      .describe(
        'The keep rule: { policy: strict | min-delta | noise-aware, minDelta, ' +
          'baselineRepeats, confidence, minSamples, maxSamples, test }. Default ' +
          'strict.',
      ),
    allowDirty: z.boolean().default(false).describe('Start on a dirty working tree. Default false.'),
    deferStagingAt: deferStagingAtSchema,
    maxRepairAttempts: z
      .number()
      .int()
      .nonnegative()
      .default(2)
      .describe('Repair attempts for a crash within one iteration. Default 2.'),
    pauseAfterCrashes: z
      .number()
      .int()
      .positive()
      .default(3)
      .describe('Crashes in a row that pause with a strategy-review hint. Default 3.'),
    cooldownAfterDiscards: z
      .number()
      .int()
      .positive()
      .default(5)
      .describe('Discards in a row that trigger a cool-down round. Default 5.'),
    notifyAfterDiscards: z
      .number()
      .int()
      .positive()
      .default(10)
      .describe('Discards in a row that emit a notify event. Default 10.'),
    logFile: relativePath.default('run.log').describe('The run log, relative to dir. Default run.log.'),
    keepLogs: z
      .number()
      .int()
      .nonnegative()
      .default(100)
      .describe(
        'How many run logs to keep as .loop/logs/<iteration>.log (each ' +
          "candidate's, a working copy's included; the oldest removed). 0 keeps " +
          'none. Default 100.',
      ),
    env: z.record(z.string(), z.string()).default({}).describe('Extra environment variables for the run command.'),
    harness: harnessSandboxSchema
      .optional()
      .describe(
        'The sandbox of the run command and the checks command: { sandbox: auto ' +
          '| bwrap | none, writable, network }. Default unconfined.',
      ),
    parallel: parallelSchema
      .optional()
      .describe(
        'Parallel candidates: { candidates: K, concurrency, remeasureIncumbent, ' +
          'link, workers: { redis, queue, remote } }. Default none (one candidate ' +
          'at a time, in place).',
      ),
    intermediate: intermediateSchema
      .optional()
      .describe(
        'Intermediate reports: { pattern, pollMs }: each new run-log line ' +
          'matching pattern reports (step, value) live; the curve is kept with the ' +
          'row (.loop/records.jsonl) for pruning, loop report and the dashboard.',
      ),
    prune: pruneSchema
      .optional()
      .describe(
        'Stop doomed runs early: { pruners: [{ type: incumbent | median | ' +
          'patience | non-finite, ... }], steps, enabled }. Needs intermediate. A ' +
          'pruned run is killed and logged as a discard "(pruned at step s of n: ' +
          '...)", never a crash. docs/pruning.md.',
      ),
    metrics: metricsSchema.optional(),
    constraints: constraintsSchema,
    checks: checksSchema
      .optional()
      .describe('The checks gate: a keep only stands when this command passes. Output in .loop/checks.log.'),
    holdout: holdoutConfigSchema
      .optional()
      .describe(
        'A sealed holdout (docs/holdout.md): { command, metricName, files, gate: ' +
          '{ budget, margin }, sealed, stateDir }: scored on the best state when ' +
          'the run stops (and by loop holdout), optionally gating each keep; its ' +
          'files and scores are hidden from the agent.',
      ),
  })
  .strict()
  .refine((c) => c.killTimeoutS >= c.timeBudgetS, {
    message: 'killTimeoutS must be at least timeBudgetS',
    path: ['killTimeoutS'],
  })
  .refine((c) => !c.prune?.enabled || c.intermediate, {
    message: 'prune needs intermediate: { pattern } (the reports a pruner looks at)',
    path: ['prune'],
  })
  .superRefine((c, ctx) => {
    const builtIn = c.target !== undefined && c.target.type !== 'code';
    if (!c.target && c.targetFiles === undefined)
      ctx.addIssue({ code: 'custom', path: ['targetFiles'], message: 'missing required field (expected array)' });
    if (!builtIn && c.runCommand === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['runCommand'],
        message: c.target
          ? 'target type code needs runCommand (loop init --eval "<command>")'
          : 'missing required field (expected string)',
      });
    if (!c.target && c.metricName === undefined)
      ctx.addIssue({ code: 'custom', path: ['metricName'], message: 'missing required field (expected string)' });
    for (const field of ['runCommand', 'targetFiles', 'metricName'] as const) {
      if (builtIn && c[field] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `target type ${c.target?.type} brings its own evaluator; remove ${field}`,
        });
    }
  })
  .refine((c) => !(c.holdout?.gate && c.parallel), {
    message:
      'the holdout gate runs in the workspace and does not work with parallel ' +
      'candidates; drop holdout.gate or parallel',
    path: ['holdout', 'gate'],
  })
  .refine((c) => !(c.parallel?.workers && c.metricFile !== undefined), {
    message:
      'metricFile is written on the worker and not shipped back to the ' +
      'coordinator; with parallel.workers the metric must come from the run log ' +
      '(remove metricFile)',
    path: ['parallel', 'workers'],
  })
  .superRefine((c, ctx) => {
    if (c.proposer.type === 'agent' || (c.targetFiles ?? (c.target ? [c.target.path] : [])).includes(c.proposer.file))
      return;
    ctx.addIssue({
      code: 'custom',
      message: `the ${c.proposer.type} file must be one of targetFiles`,
      path: ['proposer', 'file'],
    });
  })
  .superRefine((c, ctx) => {
    for (const issue of constraintIssues(c)) ctx.addIssue({ code: 'custom', ...issue });
    for (const issue of costMetricIssues(c)) ctx.addIssue({ code: 'custom', ...issue });
  })
  .superRefine((c, ctx) => {
    c.readOnlyFiles.forEach((file, i) => {
      if (c.targetFiles?.includes(file))
        ctx.addIssue({
          code: 'custom',
          message: `${file} is also in targetFiles: a file cannot be both a target and read-only`,
          path: ['readOnlyFiles', i],
        });
    });
  });

/** A config file as written (defaults not applied). */
export type LoopConfigInput = z.input<typeof loopConfigSchema>;
/** A validated config file, defaults applied. */
export type LoopConfig = z.output<typeof loopConfigSchema>;

/**
 * The JSON Schema of a config file, generated from {@link loopConfigSchema} (the file shipped as
 * `schema/loop-config.schema.json`).
 */
export function loopConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(loopConfigSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { ...schema, title: 'loop config (preset auto-iterate)' };
}
