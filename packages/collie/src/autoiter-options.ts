import { type Clock, type Guard, type Harness, type KeepPolicy, type MaybePromise, type StopPolicy } from '@loop/core';
import { type SandboxOptions } from '@loop/core/process';
import type { Agent } from './agent.js';
import type { AuditGuard } from './audit-guard.js';
import type { LoopPolicies } from './loop-policies.js';
import type { FlowExecutor } from './flow-executor.js';
import type { RunEndNotifier } from './run-end-notifier.js';
import type { DeprecatedAutoiterOptions } from './deprecated-options.js';
import type { Preparer } from './preparer.js';
import type { RunSpecAsker } from './run-spec-asker.js';
import type { TaskTracker } from './task-tracker.js';
import type { Workspace } from './workspace.js';

/** The environment flag of the nested-call guard (seed 000 §3.5). */
export const ACTIVE_FLAG = 'COLLIE_AUTOITER_ACTIVE';

/** What the harness factory gets for one trigger run. */
export interface TriggerRun {
  /** The run spec's `trigger.invocation`. */
  readonly invocation: string;
  /** The working copy (worktree) path. */
  readonly cwd: string;
  /** Absolute log path (raw.log, rerun.log or recovery-N.log). */
  readonly logFile: string;
  /**
   * The seed's timeout: min(max_wallclock_min / max_iterations, 30) minutes (5 for a ladder validation rerun), in ms.
   */
  readonly timeoutMs: number;
  /** Time between SIGTERM and SIGKILL when the run is killed, in ms (the seed's `sleep 5`). */
  readonly graceMs: number;
  /** Environment for the trigger (carries `COLLIE_AUTOITER_ACTIVE=1`). */
  readonly env: Record<string, string>;
  /**
   * `<run>/trigger.pgid`: the default harness records the running trigger's process group there and,
   * when a restarted controller finds a trigger orphaned by a killed one, kills it first (Stage 3.2
   * step 1's SIGTERM, grace, SIGKILL) — see core `CommandHarnessOptions.pidFile`.
   */
  readonly pidFile: string;
}

/** The run a {@link AutoiterOptions.tasks} factory builds a tracker for. */
export interface TaskTrackerRun {
  readonly runId: string;
  /** Absolute run directory (`<stateRoot>/autoiter/<projectId>/<runId>`). */
  readonly dir: string;
}

/** Where collie writes its files (`files` of {@link AutoiterOptions}). */
export interface AutoiterFileOptions {
  /** Absolute root of collie's files (the seed's `~/.collie`). @default `~/.collie` */
  stateRoot?: string;
}

/** How the trigger runs (Stages 2, 3.2 and 5.3; `run` of {@link AutoiterOptions}). */
export interface AutoiterRunOptions {
  /**
   * Builds the harness of one trigger run.
   * @default core createCommandHarness (process group, hard kill at timeoutMs, `pidFile`)
   */
  createHarness?: (run: TriggerRun) => Harness;
  /**
   * The sandbox of the trigger when collie builds its harness (no `createHarness`): core
   * `SandboxOptions`, passed to core's `createCommandHarness` with the worktree as the writable
   * path. @default { sandbox: 'none' }, as core's command harness: the trigger is the user's own
   * test suite or benchmark and may need GPUs, caches in the home folder or the network; set `auto`
   * or `bwrap` to confine it.
   */
  sandbox?: SandboxOptions;
  /**
   * Stage 2/3 monitor: regular expressions (JavaScript syntax, tested per log line) that mark a
   * blocking issue while the trigger is still running. A match kills the trigger's process group
   * (SIGTERM, then SIGKILL after `killGraceMs`: Stage 3.2 step 1) and sends the iteration to the
   * auto-recovery ladder. @default [] (the trigger always runs to its end or its timeout)
   */
  blockingPatterns?: string[];
  /** How often the monitor reads new lines of raw.log, in ms. @default 1000 */
  monitorIntervalMs?: number;
  /** SIGTERM → SIGKILL grace when a trigger is killed, in ms. @default 5000 (the seed's `sleep 5`) */
  killGraceMs?: number;
}

/** How the scalar is read from the trigger's log (`score` of {@link AutoiterOptions}). */
export interface AutoiterScoreOptions {
  /**
   * The run spec's `trigger.scalar_extraction`: a regex (group 1, or the first number after the
   * match). @default '^score:\\s*(\\S+)'
   */
  scalarExtraction?: string;
}

/** What may be kept (Stages 5.1, 5.2 and 6; `keep` of {@link AutoiterOptions}). */
export interface AutoiterKeepOptions {
  /**
   * A core `KeepPolicy` asked at Stage 6 after the rollback matrix (`candidate` = scalar_after,
   * `incumbent` = the best kept scalar, maximize): `keep: false` reverts every FIX the matrix kept
   * (see {@link LoopPolicies}). @default none (the matrix alone decides)
   */
  policy?: KeepPolicy;
  /**
   * Guards of two kinds, told apart by shape. An {@link AuditGuard} (`id`, `name`, `check`) is an
   * extra Stage 5.2 guard run after G6 and G1 (seed 000's G4 / G5 are defined only in a reference
   * file the seed does not include: plug them in here). A core `Guard` (`name` and `beforeEdit` /
   * `beforeRun` / `afterScore` hooks), the one auto-iterate and autoresearch take, is asked about
   * each FIX before and after Stage 5.1 applies it and about the iteration at Stage 6 (see
   * {@link LoopPolicies}). @default []
   */
  guards?: (AuditGuard | Guard)[];
}

/** When the run stops (Stage 6, SC1-SC5; `stop` of {@link AutoiterOptions}). */
export interface AutoiterStopOptions {
  /** The run spec's budget.max_iterations (SC1). @default 5 */
  maxIterations?: number;
  /** budget.max_tokens (tokens, summed over every agent dispatch of the run; SC4). @default 'unlimited' */
  maxTokens?: number | 'unlimited';
  /** budget.max_wallclock_min (minutes; SC4 and the Stage 2 timeout formula). @default 'unlimited' */
  maxWallclockMin?: number | 'unlimited';
  /** Core `StopPolicy`s checked at Stage 6 after SC1-SC5 over collie's real `LoopState`. @default none */
  policy?: StopPolicy | StopPolicy[];
  /** The state.json status a `policy` stop ends the run with. @default 'converged' */
  policyStatus?: 'converged' | 'budget_exhausted' | 'escalated';
}

/** Crashed controllers (`recovery` of {@link AutoiterOptions}). */
export interface AutoiterRecoveryOptions {
  /** A controller lock not refreshed for this long is stale (its process died), in ms. @default 30000 */
  lockStaleMs?: number;
}

/** What runs at once (`parallel` of {@link AutoiterOptions}). */
export interface AutoiterParallelOptions {
  /** How many Stage 4b Deep Verify agents run at once (p-limit). @default 4 */
  deepVerify?: number;
}

/**
 * Options of {@link createAutoiter}: the run's identity and injected tools at the top level, the
 * rest in groups (`files`, `run`, `score`, `keep`, `stop`, `recovery`, `parallel`). The flat names
 * of version 0.1 ({@link DeprecatedAutoiterOptions}) still work for one version.
 */
export interface AutoiterOptions extends DeprecatedAutoiterOptions {
  /** The project id (names `<stateRoot>/autoiter/<projectId>`). */
  projectId: string;
  /** The session id (names `<stateRoot>/state/<sessionId>/last-plan.json`). */
  sessionId: string;
  /** Absolute project root (given to Discovery). */
  projectDir: string;
  /** The user's prompt, copied verbatim into the run spec's `task`. */
  task: string;
  /**
   * The sub-agent dispatcher (roles: `discovery` fast, `observe` fast, `diagnose` at the ladder's
   * tier, `triage` deep, `deep-verify` deep; the flow executor's roles when `flow` is a factory).
   * Every dispatch is metered into `<run>/tokens.jsonl` (reported usage, else an estimate).
   */
  agent: Agent;
  /** Asks Stage 0's five questions, and (when it has `choose`) "retry or abort" after a failed prepare. */
  asker: RunSpecAsker;
  /** The run's isolated working copy. @default createDirectoryWorkspace(projectDir) */
  workspace?: Workspace;
  /** Stage 0.5 prepare check. @default noPrepare() */
  preparer?: Preparer;
  /**
   * Terminal-event notifier.
   * @default createNotifyCommand($COLLIE_AUTOITER_NOTIFY_CMD) when set, else noNotify()
   */
  notifier?: RunEndNotifier;
  /** The seed's `scripts/escalate.sh <reason> <id>`. @default prints `[autoiter] escalate <reason> <id>` to output */
  escalate?: (reason: string, id: string) => MaybePromise<void>;
  /**
   * Stage 5.1's flow executor (applies one FIX; the stage commits it), or a factory given the
   * metered agent (so the flow's tokens count towards SC4), e.g.
   * `(agent) => createFlowPipelineExecutor({ agent, testCommand: 'npm test' })`.
   * @default createAgentFlowExecutor(metered agent)
   */
  flow?: FlowExecutor | ((agent: Agent) => FlowExecutor);
  /**
   * Stage 1 Step 0 task anchors (the seed's TaskCreate / TaskUpdate / TaskList): a tracker, or a
   * factory per run. @default a file tracker at `<run>/tasks.json`
   */
  tasks?: TaskTracker | ((run: TaskTrackerRun) => TaskTracker);
  /** Where collie writes its files. */
  files?: AutoiterFileOptions;
  /** How the trigger runs. */
  run?: AutoiterRunOptions;
  /** How the scalar is read. */
  score?: AutoiterScoreOptions;
  /** What may be kept. */
  keep?: AutoiterKeepOptions;
  /**
   * When the run stops. A core `StopPolicy` or a list of them here is the deprecated flat form
   * (now `stop.policy`).
   */
  stop?: AutoiterStopOptions | StopPolicy | StopPolicy[];
  /** Crashed controllers. */
  recovery?: AutoiterRecoveryOptions;
  /** What runs at once. */
  parallel?: AutoiterParallelOptions;
  /** Injected clock. @default systemClock */
  clock?: Clock;
  /** Returns the 6 hex characters of a new runId. @default random */
  randomHex?: () => string;
  /** The environment read for the nested-call guard and the notify command. @default process.env */
  env?: Record<string, string | undefined>;
  /** Receives the stdout ticks and the completion signal, one line per call. @default process.stdout */
  output?: (line: string) => void;
}
