import { createCommandHarness, createRegexScorer, measure, type Harness, type Scorer } from '@loop/core';
import { writeTextAtomic } from '@loop/core/files';
import { type StepContext } from '@loop/core/step-machine';
import { readText } from '../internal/read-text.js';
import { appendOnce, appendText } from '../append-once.js';
import type { Agent } from '../agent.js';
import { ACTIVE_FLAG, type TriggerRun } from '../autoiter-options.js';
import type { ResolvedAutoiterOptions } from '../autoiter-options-schema.js';
import type { FlowExecutor } from '../flow-executor.js';
import type { RunEndNotifier, RunEndEvent } from '../run-end-notifier.js';
import type { ColliePaths, IterPaths, RunPaths } from '../paths.js';
import type { Preparer } from '../preparer.js';
import { parseFixRecord, type FixRecord } from '../records.js';
import { writeRunState, type IterationEntry, type RunState } from '../run-state.js';
import { triggerTimeoutMin, type RunSpec } from '../run-spec.js';
import { fixIdOf, readTriageText } from '../stage-files.js';
import { deepVerifyGate, routeRecords } from '../confidence-gates.js';
import { fixBatches } from '../fix-plan.js';
import type { CollieStopState } from '../stop-checks.js';
import type { TaskTracker } from '../task-tracker.js';
import type { Workspace } from '../workspace.js';
import type { GitCliContext } from '@loop/rollback-git/git';
import { COLLIE_AUTHOR } from '../trailers.js';
import { readTokensUsed } from '../token-meter.js';
import { createTriggerHarness, type TriggerFacts } from './trigger-harness.js';
import { loopGuardsOf, type LoopPolicies } from '../loop-policies.js';

/** The result of one trigger run (Stage 2, 3.2 validation, 5.3). */
export interface TriggerResult {
  readonly exitCode: number | null;
  readonly scalar: number | null;
  readonly errorSignature: string | null;
  /** The log line a blocking pattern matched (the run was killed), or null. */
  readonly blockingLine: string | null;
}

/** How a trigger run is capped and watched. */
export interface TriggerRunOptions {
  /** Caps the run spec's trigger timeout, minutes. @default no cap */
  readonly capMin?: number;
  /** Kill on the blocking patterns. @default true */
  readonly monitor?: boolean;
}

/**
 * What every stage function of the controller gets (seed 000 stages 1-6): the resolved options, the
 * injected tools (agent, flow, notifier, workspace, task tracker) and the helpers they share.
 */
export interface StageContext {
  /** The options, grouped and with their defaults. */
  readonly options: ResolvedAutoiterOptions;
  readonly env: Record<string, string | undefined>;
  readonly paths: ColliePaths;
  readonly workspace: Workspace;
  readonly preparer: Preparer;
  readonly notifier: RunEndNotifier;
  /** The metered agent (every dispatch goes to the run's tokens.jsonl). */
  readonly agent: Agent;
  readonly flow: FlowExecutor;
  readonly escalate: (reason: string, id: string) => Promise<void> | void;
  readonly tasks: (rp: RunPaths, runId: string) => TaskTracker;
  /** The user's core KeepPolicy, StopPolicies and Guards (from the options). */
  readonly policies: LoopPolicies;
  /** The core step machine context of the `step()` in progress (its journal holds the effects). */
  readonly step: () => StepContext<unknown>;
  readonly iso: () => string;
  readonly tick: (runId: string, text: string) => void;
  /**
   * status.md (overwrite) and, when given, user-log.md (append). With `key` the append is
   * exactly-once across a killed and redone step ({@link appendOnce}).
   */
  readonly observe: (rp: RunPaths, status: string, log?: string, key?: string) => Promise<void>;
  /** Appends to user-log.md exactly once per key. */
  readonly logOnce: (rp: RunPaths, key: string, text: string) => Promise<void>;
  /**
   * Runs a side effect (notify, escalate) through the step machine journal of the current
   * `step()` (core `StepContext.effect`, `key` its name): a step redone after a kill does not repeat
   * an effect recorded done; one interrupted between its fsynced intent and its done line runs
   * again (at-least-once, never lost).
   */
  readonly effectOnce: (key: string, effect: () => Promise<void> | void) => Promise<void>;
  /** Writes state.json with tokens_used refreshed from tokens.jsonl. */
  readonly persist: (rp: RunPaths, state: RunState) => Promise<void>;
  readonly triggerRun: (
    state: RunState,
    spec: RunSpec,
    rp: RunPaths,
    logFile: string,
    options?: TriggerRunOptions,
  ) => Promise<TriggerResult>;
  /** The trigger as a core Harness writing `logFile` (Stage 5.3 hands it to the engine). */
  readonly triggerHarness: (
    state: RunState,
    spec: RunSpec,
    rp: RunPaths,
    logFile: string,
    options?: TriggerRunOptions,
  ) => Promise<Harness>;
  /** The run spec's `scalar_extraction` as a core regex scorer (maximize, any exit code). */
  readonly scalarScorer: (spec: RunSpec) => Scorer;
  readonly stopFacts: (state: RunState, spec: RunSpec) => CollieStopState['collie'];
  readonly worktreeOf: (rp: RunPaths) => Promise<string>;
  /** The git context of the run's worktree: commit dates from the injected clock, author collie. */
  readonly gitCtx: (rp: RunPaths) => Promise<GitCliContext>;
  readonly verifiedFixes: (ip: IterPaths) => Promise<FixRecord[]>;
  readonly eligibleFixes: (ip: IterPaths) => Promise<FixRecord[]>;
  /** Escalates from inside an iteration: status.md, user-log, escalate, notify, status escalated. */
  readonly escalateRun: (
    state: RunState,
    rp: RunPaths,
    statusLine: string,
    reason: string,
    detail: string,
    event: RunEndEvent,
  ) => Promise<void>;
}

/** Builds the {@link StageContext} of a controller from its options and injected tools. */
export function createStageContext(
  base: Pick<
    StageContext,
    | 'options'
    | 'env'
    | 'paths'
    | 'workspace'
    | 'preparer'
    | 'notifier'
    | 'agent'
    | 'flow'
    | 'escalate'
    | 'tasks'
    | 'step'
  >,
): StageContext {
  const { options: o } = base;
  const createHarness =
    o.run.createHarness ??
    ((r: TriggerRun): Harness =>
      createCommandHarness({
        command: r.invocation,
        cwd: r.cwd,
        logFile: r.logFile,
        timeBudgetMs: r.timeoutMs,
        killTimeoutMs: r.timeoutMs,
        graceMs: r.graceMs,
        env: r.env,
        pidFile: r.pidFile,
        ...o.run.sandbox,
      }));
  const iso = () => new Date(o.clock.now()).toISOString();
  const worktreeOf = async (rp: RunPaths) => (await readText(rp.worktreePath))?.trim() || o.projectDir;

  const logOnce = (rp: RunPaths, key: string, text: string) => appendOnce(rp.userLog, key, text);
  const observe = async (rp: RunPaths, status: string, log?: string, key?: string) => {
    await writeTextAtomic(rp.status, `${status}\n`);
    if (log === undefined) return;
    if (key === undefined) await appendText(rp.userLog, `${log}\n`);
    else await logOnce(rp, key, log);
  };
  const effectOnce: StageContext['effectOnce'] = async (key, effect) => {
    const step = base.step();
    await step.effect(key, async () => void (await effect()), { idempotent: true });
  };

  const persist = async (rp: RunPaths, state: RunState) => {
    await writeRunState(rp.state, {
      ...state,
      tokens_used: Math.max(state.tokens_used, await readTokensUsed(rp.tokens)),
    });
  };

  const triggerHarness: StageContext['triggerHarness'] = async (
    state,
    spec,
    rp,
    logFile,
    { capMin = Number.POSITIVE_INFINITY, monitor = true } = {},
  ) => {
    const cwd = await worktreeOf(rp);
    const timeoutMs = Math.round(Math.min(triggerTimeoutMin(spec), capMin) * 60_000);
    const inner = createHarness({
      invocation: spec.trigger.invocation,
      cwd,
      logFile,
      timeoutMs,
      graceMs: o.run.killGraceMs,
      env: { [ACTIVE_FLAG]: '1' },
      pidFile: rp.triggerPid,
    });
    return createTriggerHarness(inner, {
      logFile,
      iter: state.iter,
      blockingPatterns: monitor ? o.run.blockingPatterns : [],
      monitorIntervalMs: o.run.monitorIntervalMs,
      killGraceMs: o.run.killGraceMs,
    });
  };
  const scalarScorer: StageContext['scalarScorer'] = (spec) =>
    createRegexScorer({ pattern: spec.trigger.scalar_extraction, direction: 'maximize', requireZeroExit: false });

  // Stage 2 and 3.2 measure the current state outside any candidate: core's one evaluation (measure), no row.
  const triggerRun: StageContext['triggerRun'] = async (state, spec, rp, logFile, options) => {
    const harness = await triggerHarness(state, spec, rp, logFile, options);
    const { run, result: score } = await measure(
      harness,
      scalarScorer(spec),
      { iteration: state.iter, signal: new AbortController().signal },
      o.clock,
    );
    const t = run.data?.trigger as TriggerFacts;
    return {
      exitCode: t.exitCode,
      scalar: score.ok ? score.value : null,
      errorSignature: t.errorSignature,
      blockingLine: t.blockingLine,
    };
  };

  const stopFacts: StageContext['stopFacts'] = (state, spec) => ({
    iterations: state.iterations.map((i: IterationEntry) => ({
      iter: i.iter,
      scalar: i.scalar_after,
      delta: i.scalar_delta,
      allGreen: i.exit_code === 0,
      errorSignature: i.error_signature,
      filesChanged: i.files_changed,
      reverted: (i.rollback?.reverted.length ?? 0) > 0,
    })),
    baselineScalar: state.baseline_scalar,
    tokensUsed: state.tokens_used,
    maxTokens: spec.budget.max_tokens === 'unlimited' ? null : spec.budget.max_tokens,
    maxIterations: spec.budget.max_iterations,
    maxWallclockMin: spec.budget.max_wallclock_min === 'unlimited' ? null : spec.budget.max_wallclock_min,
    successCriterion: spec.success_criterion,
  });

  const verifiedFixes = async (ip: IterPaths): Promise<FixRecord[]> => {
    const triage = readTriageText((await readText(ip.triage)) ?? '');
    const out: FixRecord[] = [];
    for (const issue of routeRecords(triage).toVerify) {
      const text = await readText(ip.fix(fixIdOf(issue)));
      if (text !== undefined) out.push(parseFixRecord(text));
    }
    return out.sort((a, b) => a.id.localeCompare(b.id));
  };
  const eligibleFixes = async (ip: IterPaths): Promise<FixRecord[]> => {
    const eligible = (await verifiedFixes(ip)).filter((f) => deepVerifyGate(f).route === 'eligible');
    return fixBatches(eligible)
      .flat()
      .map((id) => eligible.find((f) => f.id === id)!);
  };

  const escalateRun: StageContext['escalateRun'] = async (state, rp, statusLine, reason, detail, event) => {
    const key = `iter-${state.iter}/escalated`;
    await observe(rp, statusLine, `## escalated · ${iso()}\n${reason}: ${detail}`, key);
    await effectOnce(`${key}/escalate`, () => base.escalate(reason, state.runId));
    await effectOnce(`${key}/notify`, () => base.notifier.notify({ event, runId: state.runId, statusFile: rp.status }));
    await persist(rp, { ...state, status: 'escalated', should_continue: false, stop_reason: `${reason}: ${detail}` });
  };

  const policies: LoopPolicies = {
    keepPolicy: o.keep.policy,
    stop: o.stop.policy === undefined ? [] : Array.isArray(o.stop.policy) ? o.stop.policy : [o.stop.policy],
    guards: loopGuardsOf(o.keep.guards),
  };
  return {
    ...base,
    policies,
    iso,
    tick: (runId, text) => o.output(`[autoiter ${runId}] ${text}`),
    observe,
    logOnce,
    effectOnce,
    persist,
    triggerRun,
    triggerHarness,
    scalarScorer,
    stopFacts,
    worktreeOf,
    gitCtx: async (rp) => ({ cwd: await worktreeOf(rp), now: o.clock.now(), author: COLLIE_AUTHOR }),
    verifiedFixes,
    eligibleFixes,
    escalateRun,
  };
}
