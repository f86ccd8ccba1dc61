import { hyperparameterMutatorOptionsSchema, tpeParameterSchema } from '@loop/core';
import { z } from 'zod';
import { holdoutConfigSchema } from './holdout-config.js';
import { keepSchema } from './keep-config.js';
import { constraintIssues, constraintsSchema, metricPatternSchema, metricsSchema } from './metrics-config.js';
import { notifySchema } from './notify.js';
import { intermediateSchema, pruneSchema } from './prune-config.js';
import { targetSchema } from './target-config.js';

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
        'The parameters it searches: { values: [...] }, { min, max, scale?, integer? } or { fixed }, each with an optional when.',
      ),
    seed: z.number().int().nonnegative().default(1).describe('Seed of the proposals. Default 1.'),
  })
  .strict();

const sandboxMode = z.enum(['auto', 'bwrap', 'none']);
const writablePaths = z
  .array(z.string().min(1))
  .default([])
  .describe(
    'Extra paths writable inside the sandbox: relative to dir, absolute, or ~/... (e.g. "~/.claude" for an agent CLI that keeps state there).',
  );

/** zod schema of the `harness: { sandbox, writable, network }` block (the run command and the checks command). */
export const harnessSandboxSchema = z
  .object({
    sandbox: sandboxMode
      .default('none')
      .describe(
        'Confine the run and checks commands with bubblewrap: auto (when it works here), bwrap (required: an error where it does not work), none. Default none: a harness often needs GPUs, downloads or home caches a sandbox would take away.',
      ),
    writable: writablePaths,
    network: z.boolean().default(false).describe('Allow network inside the sandbox. Default false.'),
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
        'Confine the agent with bubblewrap so it can write only targetFiles, a private /tmp and writable: auto (when bwrap works here, else a warning), bwrap (required: an error where it does not work), none. Default auto. Its /tmp is an empty tmpfs: the host /tmp is hidden from it (but for the workspace and writable paths under it).',
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
        'Notes from .loop/memory/notes.md ($LOOP_NOTES_FILE, which the agent may append to) carried into each prompt, newest first. Default 40.',
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
        'The last n discarded (or crashed) candidates whose diffs go into each prompt, from refs/loop/discarded/<n>; 0 for none. Default 3.',
      ),
  })
  .strict();

const relativePath = z.string().min(1);

/** zod schema of the `parallel: { candidates, workers? }` block (issue 15): core's parallel candidates through `createAutoIterate`'s `parallel`. */
export const parallelSchema = z
  .object({
    candidates: z
      .number()
      .int()
      .min(1)
      .max(256)
      .describe(
        'K: candidates proposed and evaluated per batch, each in its own working copy; the best one that passes is kept, the others are discards (refs/loop/discarded/<n>).',
      ),
    concurrency: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('Candidates evaluated at once, at most candidates. Default candidates.'),
    remeasureIncumbent: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'Re-run the incumbent this many times per batch alongside the candidates and decide against those samples (timing metrics). Default 0.',
      ),
    schedule: z
      .enum(['batch', 'async'])
      .optional()
      .describe(
        'batch: K candidates, then wait for the slowest (rows do not depend on timing); async: a freed slot starts the next candidate at once, decisions still in iteration order (no idle core while a slow or pruned run ends). Default batch.',
      ),
    link: z
      .array(relativePath)
      .default([])
      .describe(
        'Paths (relative to dir) symlinked into each working copy instead of copied, e.g. node_modules or a data set; on workers, the same names must be given with loop worker --link.',
      ),
    workers: z
      .object({
        redis: z
          .string()
          .regex(/^rediss?:\/\//, 'redis must be a redis:// or rediss:// URL')
          .describe('The Redis the workers (loop worker --redis URL) listen on, e.g. redis://10.0.0.5:6379.'),
        queue: z
          .string()
          .min(1)
          .optional()
          .describe('The queue name; must match loop worker --queue. Default loop-candidates.'),
        remote: z
          .string()
          .min(1)
          .optional()
          .describe(
            'The git remote the workers fetch the base commit from (a path on a shared file system or ssh://host/path). Default: dir itself.',
          ),
      })
      .strict()
      .optional()
      .describe(
        'Evaluate candidates on a worker pool over BullMQ and Redis (docs/many-machines.md) instead of in local copies; the baseline and re-measures run on the pool too.',
      ),
  })
  .strict()
  .refine((p) => p.concurrency === undefined || p.concurrency <= p.candidates, {
    message: 'concurrency must be at most candidates',
    path: ['concurrency'],
  })
  .refine((p) => !(p.schedule === 'async' && (p.remeasureIncumbent ?? 0) > 0), {
    message: 'remeasureIncumbent needs schedule batch',
    path: ['remeasureIncumbent'],
  });

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
        'The run tag; the run branch is auto-iterate/<tag>. Default: the UTC date and time of the run, e.g. "mar21-143005".',
      ),
    target: targetSchema
      .optional()
      .describe(
        "Seed 001's target: { type: skill | skill-full | memory | code, path }. skill, skill-full and memory bring their built-in evaluator (targetFiles, runCommand and metricName come from it); results.tsv goes in the target's folder.",
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
        'The shell command that runs one experiment, e.g. "node train.mjs". Required without a target or for target type code; not allowed with a built-in evaluator.',
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
        'A regex with at most one group that extracts the metric, matched one log line at a time. Refused when it does not compile, has two groups, or nests a repeat inside a repeat (e.g. (a+)+). Default ^<metricName>:\\s*(\\S+).',
      ),
    match: z
      .enum(['first', 'last'])
      .default('last')
      .describe(
        'Which matching log line counts when several match: last (default) or first. The program under edit writes to the same log; use metricFile for a channel it cannot forge.',
      ),
    metricFile: relativePath
      .optional()
      .describe(
        'A file (relative to dir) the read-only evaluator writes the metric line to after the program under edit has ended; read instead of the log, then deleted. See docs/write-your-own-harness.md.',
      ),
    fingerprintPaths: z
      .array(relativePath)
      .default([])
      .describe(
        'Folders git does not track that the evaluation depends on (e.g. node_modules), relative to dir: hashed by metadata into the harness fingerprint, so replacing or editing one stops the run (HARNESS_TAMPERED).',
      ),
    timeBudgetS: z
      .number()
      .positive()
      .default(300)
      .describe('Time budget per run in seconds (passed as LOOP_TIME_BUDGET_S). Default 300.'),
    killTimeoutS: z.number().positive().default(600).describe('Hard kill timeout per run in seconds. Default 600.'),
    maxIterations: z
      .number()
      .int()
      .nonnegative()
      .default(0)
      .describe('Iterations after the baseline; 0 runs until interrupted. Default 0.'),
    plateau: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Stop after this many iterations in a row without a keep.'),
    stopAfterNoChange: z
      .number()
      .int()
      .nonnegative()
      .default(5)
      .describe(
        'Stop after this many iterations in a row that changed no target file (no change: not evaluated): the proposer has nothing left to try or cannot write its targets. 0 never stops for this. Default 5.',
      ),
    targetScore: z.number().optional().describe('Stop once the best score reaches this value.'),
    wallClockS: z.number().positive().optional().describe('Stop after this many seconds in total.'),
    costBudget: z
      .number()
      .positive()
      .finite()
      .optional()
      .describe(
        "Stop before a proposal that would take the agent's spend over this many US dollars: the rows' cost (what the agent CLI reported) plus the mean cost of one proposal so far. See docs/agents-overnight.md.",
      ),
    tokenBudget: z.number().int().positive().optional().describe('The same for tokens.'),
    proposer: z
      .discriminatedUnion('type', [tpeProposerSchema, mutatorProposerSchema, agentProposerSchema])
      .describe(
        'Who makes the edits: { type: tpe, file, space, seed } (model-based, the default for a parameter space), { type: mutator, file, space, seed } (one value per iteration) or { type: agent, command, goal }.',
      ),
    notify: notifySchema
      .optional()
      .describe(
        'Notifications: { command, on: [end, crash-streak, plateau], crashStreak, plateau, timeoutS }: the command runs at the end of the run, after crashStreak crashes in a row and after plateau iterations without a keep.',
      ),
    keep: keepSchema
      .optional()
      .describe(
        'The keep rule: { policy: strict | min-delta | noise-aware, minDelta, baselineRepeats, confidence, minSamples, maxSamples, test }. Default strict.',
      ),
    allowDirty: z.boolean().default(false).describe('Start on a dirty working tree. Default false.'),
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
        "How many run logs to keep as .loop/logs/<iteration>.log (each candidate's, a working copy's included; the oldest removed). 0 keeps none. Default 100.",
      ),
    env: z.record(z.string(), z.string()).default({}).describe('Extra environment variables for the run command.'),
    harness: harnessSandboxSchema
      .optional()
      .describe(
        'The sandbox of the run command and the checks command: { sandbox: auto | bwrap | none, writable, network }. Default unconfined.',
      ),
    parallel: parallelSchema
      .optional()
      .describe(
        'Parallel candidates: { candidates: K, concurrency, remeasureIncumbent, link, workers: { redis, queue, remote } }. Default none (one candidate at a time, in place).',
      ),
    intermediate: intermediateSchema
      .optional()
      .describe(
        'Intermediate reports: { pattern, pollMs }: each new run-log line matching pattern reports (step, value) live; the curve is kept with the row (.loop/records.jsonl) for pruning, loop report and the dashboard.',
      ),
    prune: pruneSchema
      .optional()
      .describe(
        'Stop doomed runs early: { pruners: [{ type: incumbent | median | patience | non-finite, ... }], steps, enabled }. Needs intermediate. A pruned run is killed and logged as a discard "(pruned at step s of n: ...)", never a crash. docs/pruning.md.',
      ),
    metrics: metricsSchema.optional(),
    constraints: constraintsSchema,
    checks: z
      .object({
        command: z
          .string()
          .trim()
          .min(1, 'checks.command must not be empty')
          .describe(
            'The correctness command (e.g. "npm test"), run in dir for every candidate that would be kept; a non-zero exit or a timeout blocks the keep.',
          ),
        timeoutS: z
          .number()
          .positive()
          .default(300)
          .describe('Hard timeout of the checks command in seconds. Default 300.'),
        onFail: z
          .enum(['reject', 'halt'])
          .default('reject')
          .describe(
            'reject: the candidate is discarded with the reason in its description; halt: the run stops. Default reject.',
          ),
      })
      .strict()
      .optional()
      .describe('The checks gate: a keep only stands when this command passes. Output in .loop/checks.log.'),
    holdout: holdoutConfigSchema
      .optional()
      .describe(
        'A sealed holdout (docs/holdout.md): { command, metricName, files, gate: { budget, margin }, sealed, stateDir }: scored on the best state when the run stops (and by loop holdout), optionally gating each keep; its files and scores are hidden from the agent.',
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
      'the holdout gate runs in the workspace and does not work with parallel candidates; drop holdout.gate or parallel',
    path: ['holdout', 'gate'],
  })
  .refine((c) => !(c.parallel?.workers && c.metricFile !== undefined), {
    message:
      'metricFile is written on the worker and not shipped back to the coordinator; with parallel.workers the metric must come from the run log (remove metricFile)',
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

/** The JSON Schema of a config file, generated from {@link loopConfigSchema} (the file shipped as `schema/loop-config.schema.json`). */
export function loopConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(loopConfigSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return { ...schema, title: 'loop config (preset auto-iterate)' };
}
