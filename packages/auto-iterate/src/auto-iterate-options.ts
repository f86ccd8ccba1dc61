import { isAbsolute, normalize } from 'node:path';
import {
  sandboxOptionsFields,
  type Clock,
  type Guard,
  type IntermediatePattern,
  type KeepPolicy,
  type Proposer,
  type PruneOptions,
  type Pruner,
  type SandboxOptions,
  type StopPolicy,
} from '@loop/core';
import { z } from 'zod';
import type { ArchivedRun } from './archive-run.js';
import { autoIterateHoldoutSchema, type AutoIterateHoldout } from './holdout-options.js';
import {
  constraintOptionSchema,
  metricsOptionSchema,
  type AutoIterateConstraint,
  type MetricsOption,
} from './metric-constraints.js';
import { autoIterateParallelSchema, relativePath, type AutoIterateParallel } from './parallel-options.js';

export type { AutoIterateHoldout, AutoIterateParallel };

/** Options of {@link createAutoIterate}: seed 003's parameters plus the run's wiring. */
export interface AutoIterateOptions {
  /** Absolute path of the workspace: a git repository (its root). */
  dir: string;
  /** The run tag; the run branch is `auto-iterate/<tag>` (seed 003: tag from the date, e.g. `nov30`). @default today's date as `mon` + day */
  tag?: string;
  /** The files the loop may modify (seed 003 目标文件), relative to `dir`. At least one; each must exist. */
  targetFiles: string[];
  /** Files to read but never modify (seed 003 只读文件); a change to one is rejected and rolled back. @default [] */
  readOnlyFiles?: string[];
  /** The shell command that runs one experiment (seed 003 运行命令), e.g. `node train.mjs`. */
  runCommand: string;
  /** The metric's name (seed 003 指标名称), e.g. `val_bpb`. */
  metricName: string;
  /** `lower` or `higher` is better (seed 003 指标方向). @default 'lower' */
  direction?: 'lower' | 'higher';
  /**
   * The extraction pattern (seed 003 提取方式), matched one line at a time; refused when it does
   * not compile, has two groups, or nests a repeat in a repeat. @default `^<metricName>:\s*(\S+)`
   */
  pattern?: string;
  /**
   * Which matching line counts: `last` (seed 003 greps the log; the final line is the result) or
   * `first`. The program under edit writes to the same log, so either can be forged by it; use
   * `metricFile` for a channel it cannot write. @default 'last'
   */
  match?: 'first' | 'last';
  /**
   * A file (relative to `dir`) the read-only evaluator writes the metric line to after the
   * program under edit has ended; read instead of the log, then deleted. Kept out of git like
   * run.log. See docs/write-your-own-harness.md. @default none (the metric comes from the log)
   */
  metricFile?: string;
  /**
   * Folders git does not track that the evaluation depends on (e.g. `node_modules`), relative to
   * `dir`: hashed by metadata into the harness fingerprint, so replacing or editing one is
   * HARNESS_TAMPERED. @default []
   */
  fingerprintPaths?: string[];
  /**
   * Files outside git's view that define the evaluation (a built-in evaluator's modules, shipped in
   * `@loop/evaluators`): absolute, or relative to `dir`. Their bytes go into the harness
   * fingerprint, so a change to one is HARNESS_TAMPERED (seed 001: 评估脚本不可修改). @default []
   */
  harnessFiles?: string[];
  /**
   * results.tsv, relative to `dir` (seed 001: in the target's folder; seed 003: at the root). Kept
   * out of git. @default 'results.tsv'
   */
  resultsFile?: string;
  /**
   * The per-dimension log, relative to `dir` (e.g. `skills/x/dimensions.tsv` beside results.tsv):
   * when set, the run log's `dim.<name>: <n>` lines become each row's dimensions and are written
   * here as `commit score status <dim...>`. Kept out of git. @default none
   */
  dimensionsFile?: string;
  /** Time budget per run in seconds (seed 003 时间预算), passed to the command as LOOP_TIME_BUDGET_S. @default 300 */
  timeBudgetS?: number;
  /** Hard kill timeout per run in seconds (seed 003 超时上限). @default 600 */
  killTimeoutS?: number;
  /** Iterations to run after the baseline; 0 runs until interrupted (seed 003: LOOP FOREVER). @default 0 */
  maxIterations?: number;
  /** Stop after this many iterations in a row without a keep (seed 003: 连续 N 次无改进). @default none */
  plateau?: number;
  /**
   * Stop after this many iterations in a row that changed no target file (rows `... (no change:
   * not evaluated)`): the proposer has nothing left to try, or cannot write its targets (an agent
   * whose edits fail). Stop reason `no-file-changes`, quoting the last row. 0 never stops for
   * this (seed 003's LOOP FOREVER). @default 5 (seed 000 SC5: no file changes x5)
   */
  stopAfterNoChange?: number;
  /** Stop once the best score reaches this target. @default none */
  targetScore?: number;
  /** Stop after this many seconds of wall-clock time. @default none */
  wallClockS?: number;
  /**
   * Produces one edit per iteration (a hyperparameter mutator, an agent command, a function) for
   * `run()` and `step()`; a host that edits itself through `open()` may leave it out. @default none
   */
  proposer?: Proposer;
  /** The keep rule. @default strict improvement (equal reverts) */
  keepPolicy?: KeepPolicy;
  /**
   * Named metrics besides the objective (issue 28), read from the same log: names (each with the
   * pattern `^<name>:\s*(\S+)`) or name → pattern. Recorded in each row's `data.metrics`; the
   * baseline must print every one (else `CONFIG_INVALID` before any candidate). @default none
   */
  metrics?: MetricsOption;
  /**
   * Constraints on the metrics (issue 28, core's `withConstraints`): an expression such as
   * `rss_mb <= baseline * 1.05` (blocking), or `{ rule, mode: 'advisory' }`. Each must name a
   * declared metric (or `metricName`); a run lacking a constrained metric is a crash. @default none
   */
  constraints?: readonly AutoIterateConstraint[];
  /** Baseline re-runs to measure the noise floor (for a noise-aware keep policy). @default 1 */
  baselineRepeats?: number;
  /**
   * Seed-only detection (issue 17): a proposal whose only change to the target files is a random
   * seed (a key or assignment named like one: `seed`, `random_seed`, `*_seed`, `*Seed`, plus
   * `seedKeys`) is evaluated once and never kept, whatever the keep policy; its row says
   * `(seed-only change)`. `false` turns it off. @default on over `targetFiles`, no extra keys
   */
  seedOnly?: false | { readonly seedKeys?: readonly string[] };
  /**
   * Stop before a proposal that would take the proposals' spend over this many US dollars: the sum
   * of the rows' `data.cost.usd` (an agent proposer's usage; rows from before a resume count, their
   * records kept in `.loop/records.jsonl`) plus the mean cost of one proposal so far (core `costBudget` with
   * `source: 'history'`, `predictive: true`). Reason `cost-budget`; the message says what was spent
   * on kept, discarded and crashed rows. @default none
   */
  costBudget?: number;
  /** The same for tokens (`data.cost.tokens`). @default none */
  tokenBudget?: number;
  /** A stop policy of your own, checked with the built-in ones (any of them stops the run). @default none */
  stop?: StopPolicy;
  /** Guards of your own (core's `Guard`), run before `checks`. @default [] */
  guards?: Guard[];
  /**
   * The checks gate (the Guard of auto-iterate tools, pi-autoresearch's `checks.sh`): a correctness
   * command run in `dir` for every candidate that would be kept; a non-zero exit or a timeout blocks
   * the keep (results.tsv: `discard`, description `... (checks: \`<command>\` exited N: <last log line>)`),
   * or halts the run with `onFail: 'halt'`. Output goes to `.loop/checks.log`. @default none
   */
  checks?: { command: string; timeoutS?: number; onFail?: 'reject' | 'halt' };
  /** Continue an interrupted run from its last keep commit and results.tsv, without a new baseline. @default false */
  resume?: boolean;
  /**
   * Start a new run in a workspace that holds an earlier one (`loop run --new`; ignored with
   * `resume`): holding the workspace lock, before anything else, the earlier run's results.tsv,
   * run log, dimensions and metric files and `.loop/` files (not `.loop/runs/` nor the pid files)
   * are moved into `into` (relative to `dir`, e.g. `.loop/runs/<earlier tag>`; `-2`, ... appended
   * when taken), then the run starts as on a fresh workspace from HEAD. Nothing moves when the
   * new branch exists (`BRANCH_EXISTS`), the earlier run's branch tip is not its last kept commit
   * (`RESUME_MISMATCH`: resume it first) or the tree is dirty (`DIRTY_WORKTREE`). `onArchived`
   * hears what moved (not called when there was no earlier run). @default none
   */
  archive?: { into: string; onArchived?: (archived: ArchivedRun) => void };
  /** Start on a dirty working tree (its changes join the first candidate). @default false */
  allowDirty?: boolean;
  /**
   * Learn what the proposer and the harness changed from the OS (inotify, Linux) instead of
   * stat-ing every file of the workspace twice per iteration (issue 31); any doubt falls back to
   * a whole-tree scan (see `@loop/rollback-git`'s `watch`). Off with `parallel`.
   * @default true
   */
  watch?: boolean;
  /** Repair attempts for a simple crash within the same iteration (seed 003: 最多 2 次). @default 2 */
  maxRepairAttempts?: number;
  /** Crashes in a row that pause with a strategy-review hint (seed 001). @default 3 */
  pauseAfterCrashes?: number;
  /** Discards in a row that trigger a cool-down round (seed 001). @default 5 */
  cooldownAfterDiscards?: number;
  /** Discards in a row that emit a notify event (seed 003). @default 10 */
  notifyAfterDiscards?: number;
  /** The run log, relative to `dir` (seed 003: run.log). @default 'run.log' */
  logFile?: string;
  /**
   * How many run logs to keep in `.loop/logs/<iteration>.log` (`<iteration>.r<repeat>.log` for a
   * re-run): `logFile` holds only the latest run in place and a working copy's log goes with the
   * copy, so each finished run's log (the baseline's, each candidate's, a crash's) is copied
   * there; the oldest beyond this count are removed. 0 keeps none. @default 100
   */
  keepLogs?: number;
  /** Extra environment variables for the run command. @default {} */
  env?: Record<string, string>;
  /**
   * The sandbox of the run command and the checks command (core `SandboxOptions`: `sandbox`
   * `auto | bwrap | none`, `writable`, `network`, `onSandboxWarning`). @default { sandbox: 'none' }
   * (see core `CommandHarnessOptions` for why the harness is unconfined unless asked)
   */
  harnessSandbox?: SandboxOptions;
  /**
   * Intermediate reports (issue 27): a pattern matched live on each new line of the run's log,
   * whose groups are the step and the value (e.g. `^step (\d+) .*val_bpc ([\d.]+)`); each match is
   * reported to the loop and the run's curve is kept in its row's `data.reports`. @default none
   */
  intermediate?: IntermediatePattern;
  /**
   * Stop doomed runs early (issue 27, core `LoopOptions.prune`): pruners that look at each
   * intermediate report; a pruned run is killed, reverted as a `discard` row whose description says
   * `(pruned at step <s> of <steps>: ...)`, and never counts as a crash. Needs `intermediate`
   * (or a harness that calls `RunContext.report`). @default none
   */
  prune?: PruneOptions;
  /** Parallel candidates (issue 15): K per batch, in local working copies or on remote workers. @default none (one candidate at a time, in place) */
  parallel?: AutoIterateParallel;
  /** A sealed holdout (issue 33; see {@link AutoIterateHoldout}). @default none */
  holdout?: AutoIterateHoldout;
  /** Aborting (Ctrl-C) stops after restoring the last kept commit. */
  signal?: AbortSignal;
  /** The clock. @default systemClock */
  clock?: Clock;
}

const relative = relativePath;

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

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** Seed 003's default tag: the date as month and day, e.g. `mar21`. */
export function dateTag(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]}${d.getUTCDate()}`;
}

/** zod schema of {@link AutoIterateOptions}. */
export const autoIterateOptionsSchema = z
  .object({
    dir: z.string().refine((p) => isAbsolute(p), 'dir must be an absolute path'),
    tag: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'tag may hold letters, digits, ".", "_" and "-" only')
      .optional(),
    targetFiles: z.array(target).min(1, 'name at least one file the loop may modify'),
    readOnlyFiles: z.array(relative).default([]),
    runCommand: z.string().trim().min(1, 'runCommand must not be empty'),
    metricName: z.string().trim().min(1, 'metricName must not be empty'),
    direction: z.enum(['lower', 'higher']).default('lower'),
    pattern: z.string().min(1).optional(),
    match: z.enum(['first', 'last']).default('last'),
    metricFile: relative.optional(),
    fingerprintPaths: z.array(relative).default([]),
    harnessFiles: z.array(z.string().min(1)).default([]),
    resultsFile: relative.default('results.tsv'),
    dimensionsFile: relative.optional(),
    timeBudgetS: z.number().positive().default(300),
    killTimeoutS: z.number().positive().default(600),
    maxIterations: z.number().int().nonnegative().default(0),
    plateau: z.number().int().positive().optional(),
    stopAfterNoChange: z.number().int().nonnegative().default(5),
    targetScore: z.number().optional(),
    wallClockS: z.number().positive().optional(),
    proposer: z
      .custom<Proposer>(
        (p) => typeof (p as Proposer)?.propose === 'function',
        'proposer must have a propose() function',
      )
      .optional(),
    keepPolicy: z
      .custom<KeepPolicy>(
        (p) => p === undefined || typeof (p as KeepPolicy)?.decide === 'function',
        'keepPolicy must have decide()',
      )
      .optional(),
    baselineRepeats: z.number().int().min(1).optional(),
    metrics: metricsOptionSchema.optional(),
    constraints: z.array(constraintOptionSchema).default([]),
    seedOnly: z
      .union([z.literal(false), z.object({ seedKeys: z.array(z.string().min(1)).default([]) }).strict()])
      .default({ seedKeys: [] }),
    costBudget: z.number().positive().finite().optional(),
    tokenBudget: z.number().int().positive().optional(),
    stop: z
      .custom<StopPolicy>(
        (p) => p === undefined || typeof (p as StopPolicy)?.check === 'function',
        'stop must have check()',
      )
      .optional(),
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
    resume: z.boolean().default(false),
    archive: z
      .object({
        into: relative,
        onArchived: z
          .custom<(archived: ArchivedRun) => void>(
            (f) => f === undefined || typeof f === 'function',
            'onArchived must be a function',
          )
          .optional(),
      })
      .strict()
      .optional(),
    allowDirty: z.boolean().default(false),
    watch: z.boolean().default(true),
    maxRepairAttempts: z.number().int().nonnegative().default(2),
    pauseAfterCrashes: z.number().int().positive().default(3),
    cooldownAfterDiscards: z.number().int().positive().default(5),
    notifyAfterDiscards: z.number().int().positive().default(10),
    logFile: relative.default('run.log'),
    keepLogs: z.number().int().nonnegative().default(100),
    env: z.record(z.string(), z.string()).default({}),
    harnessSandbox: z.object(sandboxOptionsFields).strict().optional(),
    intermediate: z
      .object({ pattern: z.string().min(1), pollMs: z.number().int().positive().optional() })
      .strict()
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
  .refine((o) => o.killTimeoutS >= o.timeBudgetS, {
    message: 'killTimeoutS must be at least timeBudgetS',
    path: ['killTimeoutS'],
  })
  .refine((o) => !o.targetFiles.some((t) => o.readOnlyFiles.includes(t)), {
    message: 'a file cannot be both a target and read-only',
    path: ['readOnlyFiles'],
  })
  .refine((o) => !(o.holdout?.gate && o.parallel), {
    message:
      'the holdout gate runs in the workspace and does not work with parallel candidates; drop holdout.gate or parallel',
    path: ['holdout', 'gate'],
  });
