import { normalize } from 'node:path';
import { type Clock, type Guard, type KeepPolicy, type Proposer, type Pruner, type StopPolicy } from '@loop/core';
import { parseGroupedOptions, type FlatOptionMoves } from '@loop/core/contracts';
import { sandboxOptionsFields } from '@loop/core/process';
import { isAbsolute } from 'node:path';
import { gitResetRollbackOptionsSchema } from '@loop/rollback-git';
import { z } from 'zod';
import type { ArchivedRun } from './archive-run.js';
import type { AutoIterateOptions, DeprecatedFlatAutoIterateOptions } from './auto-iterate-options.js';
import { autoIterateHoldoutSchema, directionSchema } from './holdout-options.js';
import { constraintOptionSchema, metricsOptionSchema } from './metric-constraints.js';
import { autoIterateParallelSchema, relativePath as relative } from './parallel-options.js';

/**
 * A target: never in git's own folder (an agent allowed to write `.git/config` could set
 * `core.fsmonitor` and run commands outside its sandbox, and `.git` is never committed or rolled
 * back) nor in the loop's `.loop/` files.
 */
const target = relative.refine(
  (p) =>
    !normalize(p)
      .split(/[\\/]/)
      .some((part) => part === '.git' || part === '.loop'),
  "must not be inside .git or .loop (git's and the loop's own files are never targets)",
);

const fnOrUndefined = <T>(message: string) =>
  z.custom<T>((f) => f === undefined || typeof f === 'function', message).optional();

const filesSchema = z
  .object({
    targetFiles: z.array(target).min(1, 'name at least one file the loop may modify'),
    readOnlyFiles: z.array(relative).default([]),
    harnessFiles: z.array(z.string().min(1)).default([]),
    fingerprintPaths: z.array(relative).default([]),
    resultsFile: relative.default('results.tsv'),
    logFile: relative.default('run.log'),
    keepLogs: z.number().int().nonnegative().default(100),
    watch: z.boolean().default(true),
    // The rollback's own rule; absent leaves the rollback its default.
    deferStagingAt: gitResetRollbackOptionsSchema.shape.deferStagingAt.unwrap().optional(),
    allowDirty: z.boolean().default(false),
    archive: z
      .object({
        into: relative,
        onArchived: fnOrUndefined<(archived: ArchivedRun) => void>('onArchived must be a function'),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((f) => !f.targetFiles.some((t) => f.readOnlyFiles.includes(t)), {
    message: 'a file cannot be both a target and read-only',
    path: ['readOnlyFiles'],
  });

const runSchema = z
  .object({
    command: z.string().trim().min(1, 'run.command must not be empty'),
    timeBudgetS: z.number().positive().default(300),
    killTimeoutS: z.number().positive().default(600),
    env: z.record(z.string(), z.string()).default({}),
    sandbox: z.object(sandboxOptionsFields).strict().optional(),
    intermediate: z
      .object({ pattern: z.string().min(1), pollMs: z.number().int().positive().optional() })
      .strict()
      .optional(),
    baselineRepeats: z.number().int().min(1).optional(),
  })
  .strict()
  .refine((r) => r.killTimeoutS >= r.timeBudgetS, {
    message: 'killTimeoutS must be at least timeBudgetS',
    path: ['killTimeoutS'],
  });

const scoreSchema = z
  .object({
    metricName: z.string().trim().min(1, 'metricName must not be empty'),
    direction: directionSchema.default('minimize'),
    pattern: z.string().min(1).optional(),
    match: z.enum(['first', 'last']).default('last'),
    metricFile: relative.optional(),
    metrics: metricsOptionSchema.optional(),
    dimensionsFile: relative.optional(),
  })
  .strict();

const keepSchema = z
  .object({
    policy: z
      .custom<KeepPolicy>((p) => typeof (p as KeepPolicy)?.decide === 'function', 'keep.policy must have decide()')
      .optional(),
    constraints: z.array(constraintOptionSchema).default([]),
    guards: z
      .array(
        z.custom<Guard>(
          (g) => typeof g === 'object' && g !== null && typeof (g as Guard).name === 'string',
          'a guard must be an object with a name and hooks',
        ),
      )
      .default([]),
    checks: z
      .object({
        command: z.string().trim().min(1, 'checks.command must not be empty'),
        timeoutS: z.number().positive().default(300),
        onFail: z.enum(['reject', 'halt']).default('reject'),
      })
      .strict()
      .optional(),
    seedOnly: z
      .union([z.literal(false), z.object({ seedKeys: z.array(z.string().min(1)).default([]) }).strict()])
      .default({ seedKeys: [] }),
  })
  .strict();

const stopSchema = z
  .object({
    maxIterations: z.number().int().nonnegative().default(0),
    plateau: z.number().int().positive().optional(),
    stopAfterNoChange: z.number().int().nonnegative().default(5),
    targetScore: z.number().optional(),
    wallClockS: z.number().positive().optional(),
    costBudget: z.number().positive().finite().optional(),
    tokenBudget: z.number().int().positive().optional(),
    policy: z
      .custom<StopPolicy>((p) => typeof (p as StopPolicy)?.check === 'function', 'stop.policy must have check()')
      .optional(),
  })
  .strict();

const recoverySchema = z
  .object({
    resume: z.boolean().default(false),
    maxRepairAttempts: z.number().int().nonnegative().default(2),
    pauseAfterCrashes: z.number().int().positive().default(3),
    cooldownAfterDiscards: z.number().int().positive().default(5),
    notifyAfterDiscards: z.number().int().positive().default(10),
  })
  .strict();

/**
 * zod schema of {@link AutoIterateOptions} in the grouped shape (`createAutoIterate` moves the
 * deprecated flat names into their groups first). `direction` comes out as `minimize` / `maximize`.
 */
export const autoIterateOptionsSchema = z
  .object({
    dir: z.string().refine((p) => isAbsolute(p), 'dir must be an absolute path'),
    tag: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'tag may hold letters, digits, ".", "_" and "-" only')
      .optional(),
    // missing: each required field is named (`files.<field>`)
    files: filesSchema.prefault({} as z.input<typeof filesSchema>),
    // missing: each required field is named (`run.<field>`)
    run: runSchema.prefault({} as z.input<typeof runSchema>),
    // missing: each required field is named (`score.<field>`)
    score: scoreSchema.prefault({} as z.input<typeof scoreSchema>),
    keep: keepSchema.prefault({}),
    stop: stopSchema.prefault({}),
    recovery: recoverySchema.prefault({}),
    proposer: z
      .custom<Proposer>(
        (p) => typeof (p as Proposer)?.propose === 'function',
        'proposer must have a propose() function',
      )
      .optional(),
    prune: z
      .object({
        pruners: z.array(
          z.custom<Pruner>((p) => typeof (p as Pruner)?.check === 'function', 'a pruner must have check()'),
        ),
        steps: z.number().positive().optional(),
      })
      .strict()
      .optional(),
    parallel: autoIterateParallelSchema.optional(),
    holdout: autoIterateHoldoutSchema.optional(),
    signal: z.instanceof(AbortSignal).optional(),
    clock: z
      .custom<Clock>((c) => c === undefined || typeof (c as Clock)?.now === 'function', 'clock must have now()')
      .optional(),
  })
  .refine((o) => !(o.holdout?.gate && o.parallel), {
    message:
      'the holdout gate runs in the workspace and does not work with parallel ' +
      'candidates; drop holdout.gate or parallel',
    path: ['holdout', 'gate'],
  });

/** {@link AutoIterateOptions} parsed: grouped, with every default filled in. */
export type ParsedAutoIterateOptions = z.output<typeof autoIterateOptionsSchema>;

/** Where each deprecated flat name of {@link AutoIterateOptions} now lives. */
const AUTO_ITERATE_FLAT_OPTION_MOVES = {
  targetFiles: ['files', 'targetFiles'],
  readOnlyFiles: ['files', 'readOnlyFiles'],
  harnessFiles: ['files', 'harnessFiles'],
  fingerprintPaths: ['files', 'fingerprintPaths'],
  resultsFile: ['files', 'resultsFile'],
  logFile: ['files', 'logFile'],
  keepLogs: ['files', 'keepLogs'],
  watch: ['files', 'watch'],
  deferStagingAt: ['files', 'deferStagingAt'],
  allowDirty: ['files', 'allowDirty'],
  archive: ['files', 'archive'],
  runCommand: ['run', 'command'],
  timeBudgetS: ['run', 'timeBudgetS'],
  killTimeoutS: ['run', 'killTimeoutS'],
  env: ['run', 'env'],
  harnessSandbox: ['run', 'sandbox'],
  intermediate: ['run', 'intermediate'],
  baselineRepeats: ['run', 'baselineRepeats'],
  metricName: ['score', 'metricName'],
  direction: ['score', 'direction'],
  pattern: ['score', 'pattern'],
  match: ['score', 'match'],
  metricFile: ['score', 'metricFile'],
  metrics: ['score', 'metrics'],
  dimensionsFile: ['score', 'dimensionsFile'],
  keepPolicy: ['keep', 'policy'],
  constraints: ['keep', 'constraints'],
  guards: ['keep', 'guards'],
  checks: ['keep', 'checks'],
  seedOnly: ['keep', 'seedOnly'],
  maxIterations: ['stop', 'maxIterations'],
  plateau: ['stop', 'plateau'],
  stopAfterNoChange: ['stop', 'stopAfterNoChange'],
  targetScore: ['stop', 'targetScore'],
  wallClockS: ['stop', 'wallClockS'],
  costBudget: ['stop', 'costBudget'],
  tokenBudget: ['stop', 'tokenBudget'],
  resume: ['recovery', 'resume'],
  maxRepairAttempts: ['recovery', 'maxRepairAttempts'],
  pauseAfterCrashes: ['recovery', 'pauseAfterCrashes'],
  cooldownAfterDiscards: ['recovery', 'cooldownAfterDiscards'],
  notifyAfterDiscards: ['recovery', 'notifyAfterDiscards'],
} as const satisfies Record<keyof DeprecatedFlatAutoIterateOptions, readonly [string, string]> & FlatOptionMoves;

const isStopPolicy = (v: unknown): v is StopPolicy =>
  typeof v === 'object' && v !== null && typeof (v as StopPolicy).check === 'function';

/**
 * Validates `options` and returns them grouped with their defaults: the one place the deprecated
 * flat names are read (moved into their groups; a core `StopPolicy` given as `stop` becomes
 * `stop.policy`). `direction` `lower` / `higher` become `minimize` / `maximize`. `pathOf` names a
 * grouped path the way the caller gave it (`targetFiles.0` when `targetFiles` came flat), for
 * errors found later (a missing target file).
 *
 * @throws {ConfigError} `CONFIG_INVALID` naming the field (a flat name when it was given flat), or
 *   both names when a flat name and its grouped place are given at once.
 */
export function normalizeAutoIterateOptions(options: AutoIterateOptions): {
  options: ParsedAutoIterateOptions;
  pathOf: (path: string) => string;
} {
  const input = isStopPolicy(options.stop) ? { ...options, stop: { policy: options.stop } } : options;
  const { parsed, pathOf } = parseGroupedOptions(
    autoIterateOptionsSchema,
    input,
    AUTO_ITERATE_FLAT_OPTION_MOVES,
    'auto-iterate',
  );
  return { options: parsed, pathOf };
}
