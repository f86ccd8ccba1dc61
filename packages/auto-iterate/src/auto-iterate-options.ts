import type { Clock, Guard, KeepPolicy, Proposer, PruneOptions, StopPolicy } from '@loop/core';
import type { IntermediatePattern } from '@loop/core/harness';
import type { SandboxOptions } from '@loop/core/process';
import type { ArchivedRun } from './archive-run.js';
import type { AutoIterateHoldout } from './holdout-options.js';
import type { AutoIterateConstraint, MetricsOption } from './metric-constraints.js';
import type {
  AutoIterateDirection,
  AutoIterateFiles,
  AutoIterateKeep,
  AutoIterateRecovery,
  AutoIterateRun,
  AutoIterateScore,
  AutoIterateStop,
} from './option-groups.js';
import type { AutoIterateParallel } from './parallel-options.js';

export type { AutoIterateHoldout, AutoIterateParallel };

/**
 * Options of {@link createAutoIterate}: seed 003's parameters plus the run's wiring, grouped the way
 * TanStack Query groups its options: `files`, `run`, `score`, `keep`, `stop`, `recovery`, and
 * `parallel`, `prune`, `holdout`; `dir`, `tag`, `proposer`, `signal` and `clock` at the top level.
 * Required: `dir`, `files.targetFiles`, `run.command`, `score.metricName`.
 *
 * The flat names of earlier versions (`targetFiles`, `runCommand`, `metricName`, `timeBudgetS`,
 * `keepPolicy`, a `StopPolicy` as `stop`, ...) still work for one version: each is `@deprecated`
 * with its new place; a flat name and its grouped place at once is `CONFIG_INVALID` naming both.
 *
 * @example
 * createAutoIterate({
 *   dir,
 *   files: { targetFiles: ['config.json'], readOnlyFiles: ['prepare.mjs'] },
 *   run: { command: 'node train.mjs', timeBudgetS: 60, killTimeoutS: 120 },
 *   score: { metricName: 'val_bpc', direction: 'minimize' },
 *   stop: { maxIterations: 20, plateau: 8 },
 *   proposer,
 * });
 */
export interface AutoIterateOptions extends DeprecatedFlatAutoIterateOptions {
  /** Absolute path of the workspace: a git repository (its root). */
  dir: string;
  /**
   * The run tag; the run branch is `auto-iterate/<tag>` (seed 003: tag from the date, e.g. `nov30`). @default today's
   * date as `mon` + day
   */
  tag?: string;
  /** What may be edited and where the run writes: targets, read-only files, results.tsv, the run log. */
  files?: AutoIterateFiles;
  /** How a candidate runs: the command, its time budget and kill timeout, env, sandbox. */
  run?: AutoIterateRun;
  /** How the score is read: the metric's name, direction, pattern, named metrics. */
  score?: AutoIterateScore;
  /** What may be kept: the keep policy, constraints, guards, the checks gate, seed-only detection. */
  keep?: AutoIterateKeep;
  /**
   * When to stop: max iterations, plateau, no file changes, target score, wall clock, budgets and a
   * policy of your own. (Deprecated for one version: a core `StopPolicy` here is read as `stop.policy`.)
   * @default { stopAfterNoChange: 5 }: otherwise runs until interrupted
   */
  stop?: AutoIterateStop | StopPolicy;
  /** Crashes and resume: repair attempts, the circuit breaker's thresholds, `resume`. */
  recovery?: AutoIterateRecovery;
  /**
   * Produces one edit per iteration (a hyperparameter mutator, an agent command, a function) for
   * `run()` and `step()`; a host that edits itself through `open()` may leave it out. @default none
   */
  proposer?: Proposer;
  /**
   * Stop doomed runs early (issue 27, core `LoopOptions.prune`): pruners that look at each
   * intermediate report; a pruned run is killed, reverted as a `discard` row whose description says
   * `(pruned at step <s> of <steps>: ...)`, and never counts as a crash. Needs `run.intermediate`
   * (or a harness that calls `RunContext.report`). @default none
   */
  prune?: PruneOptions;
  /**
   * Parallel candidates (issue 15): K per batch, in local working copies or on remote workers. @default none (one
   * candidate at a time, in place)
   */
  parallel?: AutoIterateParallel;
  /** A sealed holdout (issue 33; see {@link AutoIterateHoldout}). @default none */
  holdout?: AutoIterateHoldout;
  /** Aborting (Ctrl-C) stops after restoring the last kept commit. */
  signal?: AbortSignal;
  /** The clock. @default systemClock */
  clock?: Clock;
}

/** The flat option names of {@link AutoIterateOptions} before the groups; each works for one more version. */
export interface DeprecatedFlatAutoIterateOptions {
  /** @deprecated Use `files.targetFiles`. */
  targetFiles?: string[];
  /** @deprecated Use `files.readOnlyFiles`. */
  readOnlyFiles?: string[];
  /** @deprecated Use `files.harnessFiles`. */
  harnessFiles?: string[];
  /** @deprecated Use `files.fingerprintPaths`. */
  fingerprintPaths?: string[];
  /** @deprecated Use `files.resultsFile`. */
  resultsFile?: string;
  /** @deprecated Use `files.logFile`. */
  logFile?: string;
  /** @deprecated Use `files.keepLogs`. */
  keepLogs?: number;
  /** @deprecated Use `files.watch`. */
  watch?: boolean;
  /** @deprecated Use `files.allowDirty`. */
  allowDirty?: boolean;
  /** @deprecated Use `files.archive`. */
  archive?: { into: string; onArchived?: (archived: ArchivedRun) => void };
  /** @deprecated Use `run.command`. */
  runCommand?: string;
  /** @deprecated Use `run.timeBudgetS`. */
  timeBudgetS?: number;
  /** @deprecated Use `run.killTimeoutS`. */
  killTimeoutS?: number;
  /** @deprecated Use `run.env`. */
  env?: Record<string, string>;
  /** @deprecated Use `run.sandbox`. */
  harnessSandbox?: SandboxOptions;
  /** @deprecated Use `run.intermediate`. */
  intermediate?: IntermediatePattern;
  /** @deprecated Use `run.baselineRepeats`. */
  baselineRepeats?: number;
  /** @deprecated Use `score.metricName`. */
  metricName?: string;
  /** @deprecated Use `score.direction`. */
  direction?: AutoIterateDirection;
  /** @deprecated Use `score.pattern`. */
  pattern?: string;
  /** @deprecated Use `score.match`. */
  match?: 'first' | 'last';
  /** @deprecated Use `score.metricFile`. */
  metricFile?: string;
  /** @deprecated Use `score.metrics`. */
  metrics?: MetricsOption;
  /** @deprecated Use `score.dimensionsFile`. */
  dimensionsFile?: string;
  /** @deprecated Use `keep.policy`. */
  keepPolicy?: KeepPolicy;
  /** @deprecated Use `keep.constraints`. */
  constraints?: readonly AutoIterateConstraint[];
  /** @deprecated Use `keep.guards`. */
  guards?: Guard[];
  /** @deprecated Use `keep.checks`. */
  checks?: { command: string; timeoutS?: number; onFail?: 'reject' | 'halt' };
  /** @deprecated Use `keep.seedOnly`. */
  seedOnly?: false | { readonly seedKeys?: readonly string[] };
  /** @deprecated Use `stop.maxIterations`. */
  maxIterations?: number;
  /** @deprecated Use `stop.plateau`. */
  plateau?: number;
  /** @deprecated Use `stop.stopAfterNoChange`. */
  stopAfterNoChange?: number;
  /** @deprecated Use `stop.targetScore`. */
  targetScore?: number;
  /** @deprecated Use `stop.wallClockS`. */
  wallClockS?: number;
  /** @deprecated Use `stop.costBudget`. */
  costBudget?: number;
  /** @deprecated Use `stop.tokenBudget`. */
  tokenBudget?: number;
  /** @deprecated Use `recovery.resume`. */
  resume?: boolean;
  /** @deprecated Use `recovery.maxRepairAttempts`. */
  maxRepairAttempts?: number;
  /** @deprecated Use `recovery.pauseAfterCrashes`. */
  pauseAfterCrashes?: number;
  /** @deprecated Use `recovery.cooldownAfterDiscards`. */
  cooldownAfterDiscards?: number;
  /** @deprecated Use `recovery.notifyAfterDiscards`. */
  notifyAfterDiscards?: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** Seed 003's default tag: the date as month and day, e.g. `mar21`. */
export function dateTag(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]}${d.getUTCDate()}`;
}
