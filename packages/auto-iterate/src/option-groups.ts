import type { Guard, KeepPolicy, StopPolicy } from '@loop/core';
import type { IntermediatePattern } from '@loop/core/harness';
import type { SandboxOptions } from '@loop/core/process';
import type { ArchivedRun } from './archive-run.js';
import type { AutoIterateConstraint, MetricsOption } from './metric-constraints.js';

/** Which way the score improves: the API's `minimize` / `maximize`, or seed 003's `lower` / `higher`. */
export type AutoIterateDirection = 'minimize' | 'maximize' | 'lower' | 'higher';

/** `files` of {@link AutoIterateOptions}: what may be edited and where the run writes (all relative to `dir`). */
export interface AutoIterateFiles {
  /** The files the loop may modify (seed 003 目标文件). At least one; each must exist. */
  targetFiles: string[];
  /** Files to read but never modify (seed 003 只读文件); a change to one is rejected and rolled back. @default [] */
  readOnlyFiles?: string[];
  /**
   * Files outside git's view that define the evaluation (a built-in evaluator's modules, shipped in
   * `@loop/evaluators`): absolute, or relative to `dir`. Their bytes go into the harness
   * fingerprint, so a change to one is HARNESS_TAMPERED (seed 001: 评估脚本不可修改). @default []
   */
  harnessFiles?: string[];
  /**
   * Folders git does not track that the evaluation depends on (e.g. `node_modules`): hashed by
   * metadata into the harness fingerprint, so replacing or editing one is HARNESS_TAMPERED. @default []
   */
  fingerprintPaths?: string[];
  /**
   * results.tsv (seed 001: in the target's folder; seed 003: at the root). Kept out of git.
   * @default 'results.tsv'
   */
  resultsFile?: string;
  /** The run log (seed 003: run.log). @default 'run.log' */
  logFile?: string;
  /**
   * How many run logs to keep in `.loop/logs/<iteration>.log` (`<iteration>.r<repeat>.log` for a
   * re-run): `logFile` holds only the latest run in place and a working copy's log goes with the
   * copy, so each finished run's log (the baseline's, each candidate's, a crash's) is copied
   * there; the oldest beyond this count are removed. 0 keeps none. @default 100
   */
  keepLogs?: number;
  /**
   * Learn what the proposer and the harness changed from the OS (inotify, Linux) instead of
   * stat-ing every file of the workspace twice per iteration (issue 31); any doubt falls back to
   * a whole-tree scan (see `@loop/rollback-git`'s `watch`). Off with `parallel`. @default true
   */
  watch?: boolean;
  /**
   * The index size in bytes from which a candidate's staging waits for its keep (issue 31; see
   * `@loop/rollback-git`'s `deferStagingAt`): a discarded candidate then writes no index, and during
   * a candidate's run `git status` shows its files both staged (reversed) and not staged. `Infinity`
   * for a harness that reads the index itself (`git diff --cached`). @default 1_048_576
   */
  deferStagingAt?: number;
  /** Start on a dirty working tree (its changes join the first candidate). @default false */
  allowDirty?: boolean;
  /**
   * Start a new run in a workspace that holds an earlier one (`loop run --new`; ignored with
   * `recovery.resume`): holding the workspace lock, before anything else, the earlier run's
   * results.tsv, run log, dimensions and metric files and `.loop/` files (not `.loop/runs/` nor the
   * pid files) are moved into `into` (relative to `dir`, e.g. `.loop/runs/<earlier tag>`; `-2`, ...
   * appended when taken), then the run starts as on a fresh workspace from HEAD. Nothing moves when
   * the new branch exists (`BRANCH_EXISTS`), the earlier run's branch tip is not its last kept
   * commit (`RESUME_MISMATCH`: resume it first) or the tree is dirty (`DIRTY_WORKTREE`).
   * `onArchived` hears what moved (not called when there was no earlier run). @default none
   */
  archive?: { into: string; onArchived?: (archived: ArchivedRun) => void };
}

/** `run` of {@link AutoIterateOptions}: how a candidate runs. */
export interface AutoIterateRun {
  /** The shell command that runs one experiment (seed 003 运行命令), e.g. `node train.mjs`. */
  command: string;
  /** Time budget per run in seconds (seed 003 时间预算), passed to the command as LOOP_TIME_BUDGET_S. @default 300 */
  timeBudgetS?: number;
  /** Hard kill timeout per run in seconds (seed 003 超时上限), at least `timeBudgetS`. @default 600 */
  killTimeoutS?: number;
  /** Extra environment variables for the run command (and the checks command). @default {} */
  env?: Record<string, string>;
  /**
   * The sandbox of the run command and the checks command (core `SandboxOptions`: `sandbox`
   * `auto | bwrap | none`, `writable`, `network`, `onSandboxWarning`). @default { sandbox: 'none' }
   * (see core `CommandHarnessOptions` for why the harness is unconfined unless asked)
   */
  sandbox?: SandboxOptions;
  /**
   * Intermediate reports (issue 27): a pattern matched live on each new line of the run's log,
   * whose groups are the step and the value (e.g. `^step (\d+) .*val_bpc ([\d.]+)`); each match is
   * reported to the loop and the run's curve is kept in its row's `data.reports`. @default none
   */
  intermediate?: IntermediatePattern;
  /** Baseline re-runs to measure the noise floor (for a noise-aware keep policy). @default 1 */
  baselineRepeats?: number;
}

/** `score` of {@link AutoIterateOptions}: how the score is read from a run. */
export interface AutoIterateScore {
  /** The metric's name (seed 003 指标名称), e.g. `val_bpb`. */
  metricName: string;
  /**
   * Which way is better (seed 003 指标方向): `minimize` / `maximize`, or the seed's `lower` / `higher`.
   * @default 'minimize'
   */
  direction?: AutoIterateDirection;
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
   * Named metrics besides the objective (issue 28), read from the same log: names (each with the
   * pattern `^<name>:\s*(\S+)`) or name → pattern. Recorded in each row's `data.metrics`; the
   * baseline must print every one (else `CONFIG_INVALID` before any candidate). @default none
   */
  metrics?: MetricsOption;
  /**
   * The per-dimension log, relative to `dir` (e.g. `skills/x/dimensions.tsv` beside results.tsv):
   * when set, the run log's `dim.<name>: <n>` lines become each row's dimensions and are written
   * here as `commit score status <dim...>`. Kept out of git. @default none
   */
  dimensionsFile?: string;
}

/** `keep` of {@link AutoIterateOptions}: what may be kept. */
export interface AutoIterateKeep {
  /** The keep rule. @default strict improvement (equal reverts) */
  policy?: KeepPolicy;
  /**
   * Constraints on the metrics (issue 28, core's `withConstraints`): an expression such as
   * `rss_mb <= baseline * 1.05` (blocking), or `{ rule, mode: 'advisory' }`. Each must name a
   * declared metric (or `score.metricName`); a run lacking a constrained metric is a crash. @default none
   */
  constraints?: readonly AutoIterateConstraint[];
  /** Guards of your own (core's `Guard`), run before `checks`. @default [] */
  guards?: Guard[];
  /**
   * The checks gate (the Guard of auto-iterate tools, pi-autoresearch's `checks.sh`): a correctness
   * command run in `dir` for every candidate that would be kept; a non-zero exit or a timeout blocks
   * the keep (results.tsv: `discard`, description `... (checks: \`<command>\` exited N: <last log line>)`),
   * or halts the run with `onFail: 'halt'`. Output goes to `.loop/checks.log`. @default none
   */
  checks?: { command: string; timeoutS?: number; onFail?: 'reject' | 'halt' };
  /**
   * Seed-only detection (issue 17): a proposal whose only change to the target files is a random
   * seed (a key or assignment named like one: `seed`, `random_seed`, `*_seed`, `*Seed`, plus
   * `seedKeys`) is evaluated once and never kept, whatever the keep policy; its row says
   * `(seed-only change)`. `false` turns it off. @default on over `files.targetFiles`, no extra keys
   */
  seedOnly?: false | { readonly seedKeys?: readonly string[] };
}

/** `stop` of {@link AutoIterateOptions}: when to stop (any condition stops the run). */
export interface AutoIterateStop {
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
   * Stop before a proposal that would take the proposals' spend over this many US dollars: the sum
   * of the rows' `data.cost.usd` (an agent proposer's usage; rows from before a resume count, their
   * records kept in `.loop/records.jsonl`) plus the mean cost of one proposal so far (core
   * `costBudget` with `source: 'history'`, `predictive: true`). Reason `cost-budget`; the message
   * says what was spent on kept, discarded and crashed rows. @default none
   */
  costBudget?: number;
  /** The same for tokens (`data.cost.tokens`). @default none */
  tokenBudget?: number;
  /** A stop policy of your own, checked with the built-in ones (any of them stops the run). @default none */
  policy?: StopPolicy;
}

/** `recovery` of {@link AutoIterateOptions}: crashes and resume. */
export interface AutoIterateRecovery {
  /** Continue an interrupted run from its last keep commit and results.tsv, without a new baseline. @default false */
  resume?: boolean;
  /** Repair attempts for a simple crash within the same iteration (seed 003: 最多 2 次). @default 2 */
  maxRepairAttempts?: number;
  /** Crashes in a row that pause with a strategy-review hint (seed 001). @default 3 */
  pauseAfterCrashes?: number;
  /** Discards in a row that trigger a cool-down round (seed 001). @default 5 */
  cooldownAfterDiscards?: number;
  /** Discards in a row that emit a notify event (seed 003). @default 10 */
  notifyAfterDiscards?: number;
}
