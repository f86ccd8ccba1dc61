import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import pLimit from 'p-limit';
import { createCommandHarness, createRegexScorer, LoopError, parseOptions, readJson, systemClock, writeJsonAtomic, type Clock, type Harness, type MaybePromise } from '@loop/core';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Agent } from './agent.js';
import { appendText, copyAtomic, exists, readText, removeFile, writeTextAtomic } from './internal/fs.js';
import { createNotifyCommand, noNotify, type Notifier, type NotifyEvent } from './notifier.js';
import { resolveColliePaths, type ColliePaths, type IterPaths, type RunPaths } from './paths.js';
import { noPrepare, type Preparer } from './preparer.js';
import type { QuestionAsker } from './question-asker.js';
import { initialRunState, isTerminal, PROMISE_SIGNAL, readRunState, writeRunState, type IterationEntry, type LadderAttempt, type RunState } from './run-state.js';
import { ladderStartTier, parseObservations, renderObservations, upgradeTier } from './observations.js';
import { TIER_MODELS } from './agent.js';
import { parseRunSpec, planSourceOf, renderPlanFile, runSpecFromAnswers, stage0Questions, triggerTimeoutMin, type RunSpec } from './run-spec.js';
import { collieStopState, convergenceEpsilon, evaluateStopChecks, type CollieStopState } from './stop-checks.js';
import { createDirectoryWorkspace, type Workspace } from './workspace.js';
import { checkG3, deepVerifyPrompt, G3_DEEP_VERIFY, G3_TRIAGE, triagePrompt } from './g3.js';
import { deepVerifyGate, routeRecords } from './gates.js';
import { g7Check } from './g7.js';
import { fixBatches, renderFixPlan } from './fix-plan.js';
import { g1TestFileGuard, g6DiffAudit, type ChangedFile } from './diff-guards.js';
import { decideRollback } from './rollback-matrix.js';
import { parseFixRecord, parseTriage, type FixRecord } from './records.js';
import { createAgentFlowExecutor, type FlowExecutor } from './flow-executor.js';
import { commitAll, commitFiles, discardChanges, findCommit, FIX_TRAILER, git, headSha, isDirty, REVERT_TRAILER, type GitContext } from './git.js';
import { addDeferred, fixIdOf, parseDeferred, planTaskText, readLedger, readTriageText, renderFixRecord, renderTriage, writeLedger, type FlowLedger } from './stage-files.js';

/** The environment flag of the nested-call guard (seed 000 §3.5). */
export const ACTIVE_FLAG = 'COLLIE_AUTOITER_ACTIVE';
/** The completion signal, emitted only by the terminal branch. */
export const COMPLETION_SIGNAL = `<promise>${PROMISE_SIGNAL}</promise>`;

/** What the harness factory gets for one trigger run. */
export interface TriggerRun {
  /** The run spec's `trigger.invocation`. */
  readonly invocation: string;
  /** The working copy (worktree) path. */
  readonly cwd: string;
  /** Absolute log path (raw.log or rerun.log). */
  readonly logFile: string;
  /** The seed's timeout: min(max_wallclock_min / max_iterations, 30) minutes, in ms. */
  readonly timeoutMs: number;
  /** Environment for the trigger (carries `COLLIE_AUTOITER_ACTIVE=1`). */
  readonly env: Record<string, string>;
}

/** Options of {@link createAutoiter}. */
export interface AutoiterOptions {
  /** Absolute root of collie's files (the seed's `~/.collie`). @default `~/.collie` */
  stateRoot?: string;
  /** The project id (names `<stateRoot>/autoiter/<projectId>`). */
  projectId: string;
  /** The session id (names `<stateRoot>/state/<sessionId>/last-plan.json`). */
  sessionId: string;
  /** Absolute project root (given to Discovery). */
  projectDir: string;
  /** The user's prompt, copied verbatim into the run spec's `task`. */
  task: string;
  /** The scalar regex for `trigger.scalar_extraction` (group 1, or the first number after the match). @default '^score:\\s*(\\S+)' */
  scalarExtraction?: string;
  /** budget.max_iterations. @default 5 */
  maxIterations?: number;
  /** budget.max_tokens. @default 'unlimited' */
  maxTokens?: number | 'unlimited';
  /** budget.max_wallclock_min. @default 'unlimited' */
  maxWallclockMin?: number | 'unlimited';
  /** The sub-agent dispatcher (roles: `discovery` fast, `observe` fast, `diagnose` at the ladder's tier, `triage` deep, `deep-verify` deep; `flow` standard when `flow` is not given). */
  agent: Agent;
  /** Asks Stage 0's five questions. */
  asker: QuestionAsker;
  /** The run's isolated working copy. @default createDirectoryWorkspace(projectDir) */
  workspace?: Workspace;
  /** Stage 0.5 prepare check. @default noPrepare() */
  preparer?: Preparer;
  /** Terminal-event notifier. @default createNotifyCommand($COLLIE_AUTOITER_NOTIFY_CMD) when set, else noNotify() */
  notifier?: Notifier;
  /** Builds the harness of one trigger run. @default core createCommandHarness */
  createHarness?: (run: TriggerRun) => Harness;
  /** The seed's `scripts/escalate.sh <reason> <id>`. @default prints `[autoiter] escalate <reason> <id>` to output */
  escalate?: (reason: string, id: string) => MaybePromise<void>;
  /** Stage 5.1's flow executor (applies one FIX; the stage commits it). @default createAgentFlowExecutor(agent) */
  flow?: FlowExecutor;
  /** How many Stage 4b Deep Verify agents run at once (p-limit). @default 4 */
  deepVerifyConcurrency?: number;
  /** Injected clock. @default systemClock */
  clock?: Clock;
  /** Returns the 6 hex characters of a new runId. @default random */
  randomHex?: () => string;
  /** The environment read for the nested-call guard and the notify command. @default process.env */
  env?: Record<string, string | undefined>;
  /** Receives the stdout ticks and the completion signal, one line per call. @default process.stdout */
  output?: (line: string) => void;
}

const fn = <T>(what: string) => z.custom<T>((v) => typeof v === 'function', `${what} must be a function`);
const obj = <T>(what: string) => z.custom<T>((v) => typeof v === 'object' && v !== null, `${what} must be an object`);
const abs = (what: string) => z.string().refine((p) => isAbsolute(p), `${what} must be an absolute path`);
const limit = z.union([z.literal('unlimited'), z.number().positive()]);

/** zod schema of {@link AutoiterOptions}. */
export const autoiterOptionsSchema = z.object({
  stateRoot: abs('stateRoot').default(() => join(homedir(), '.collie')),
  projectId: z.string().regex(/^[\w.-]+$/, 'projectId must be letters, digits, dot, dash or underscore'),
  sessionId: z.string().regex(/^[\w.-]+$/, 'sessionId must be letters, digits, dot, dash or underscore'),
  projectDir: abs('projectDir'),
  task: z.string().min(1, 'task must not be empty'),
  scalarExtraction: z.string().min(1).default('^score:\\s*(\\S+)'),
  maxIterations: z.number().int().positive().default(5),
  maxTokens: limit.default('unlimited'),
  maxWallclockMin: limit.default('unlimited'),
  agent: obj<Agent>('agent'),
  asker: obj<QuestionAsker>('asker'),
  workspace: obj<Workspace>('workspace').optional(),
  preparer: obj<Preparer>('preparer').optional(),
  notifier: obj<Notifier>('notifier').optional(),
  createHarness: fn<(run: TriggerRun) => Harness>('createHarness').optional(),
  escalate: fn<(reason: string, id: string) => MaybePromise<void>>('escalate').optional(),
  flow: obj<FlowExecutor>('flow').optional(),
  deepVerifyConcurrency: z.number().int().positive().default(4),
  clock: obj<Clock>('clock').default(systemClock),
  randomHex: fn<() => string>('randomHex').default(() => () => randomBytes(3).toString('hex')),
  env: z.record(z.string(), z.string().optional()).optional(),
  output: fn<(line: string) => void>('output').default(() => (line: string) => void process.stdout.write(`${line}\n`)),
});

/** The stage a `stage` outcome ran. */
export type StageName = 'stage1' | 'stage2' | 'stage3' | 'stage3.2' | 'stage4a' | 'stage4b' | 'stage5.0' | 'stage5.1' | 'stage5.2' | 'stage5.3' | 'stage6';

/** What one {@link Autoiter.step} did. */
export type StepOutcome =
  /** COLLIE_AUTOITER_ACTIVE was set: escalated `nested_loop_call`, touched no file. */
  | { readonly kind: 'nested-refused' }
  /** Branch A: fresh start and Stage 0 (run spec written to the plan file); `recoveryFailed` says why Branch B fell back here. */
  | { readonly kind: 'stage0'; readonly runId: string; readonly recoveryFailed?: string }
  /** Branch B: run-spec.md copied, worktree and prepare done, state.json initialised (or escalated by prepare). */
  | { readonly kind: 'recovered'; readonly runId: string; readonly status: RunState['status'] }
  /** Branch C: one stage of a running iteration, or Stage 6. */
  | { readonly kind: 'stage'; readonly runId: string; readonly iter: number; readonly stage: StageName; readonly status: RunState['status'] }
  /** Terminal branch: current-run removed, then the completion signal emitted. */
  | { readonly kind: 'done'; readonly runId: string; readonly status: RunState['status']; readonly signal: typeof COMPLETION_SIGNAL };

/** The autoiter controller. */
export interface Autoiter {
  /** The resolved file layout. */
  readonly paths: ColliePaths;
  /**
   * Performs one resumable unit of §3.5 and persists its effect before returning. Calling it again
   * (in this process or a new one) continues from the files alone.
   */
  readonly step: () => Promise<StepOutcome>;
  /** Calls `step()` until `done` or `nested-refused` (at most `maxSteps` times) and returns every outcome. */
  readonly run: (options?: { maxSteps?: number }) => Promise<StepOutcome[]>;
}

/** `YYYYMMDD-HHMMSS-<hex6>` in UTC (seed 000 Branch A step 1). */
export function formatRunId(nowMs: number, hex: string): string {
  const iso = new Date(nowMs).toISOString(); // 2026-01-02T03:04:05.678Z
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}-${hex.slice(0, 6)}`;
}

const OBSERVE_PROMPT = [
  'You are the Observe subagent of an autoiter run. Read the trigger log excerpt and the run spec.',
  'List every issue (errors, failing tests, crashes, suspicious metrics) as a markdown section:',
  '## ISSUE-{nnn}',
  '- title: <one-line summary>',
  '- evidence: <log excerpt, max 5 lines>',
  '- severity: 1-5',
  '- first_seen_ts: <monotonic>',
  '- blocking: true|false   (true when the run cannot produce its result)',
  'If there are no issues, reply with the single line: NO ISSUES',
].join('\n');

const diagnosePrompt = (worktree: string) =>
  [
    'You are the diagnostic subagent of the autoiter auto-recovery ladder.',
    'The trigger run failed with a blocking issue. Find the root cause from the log excerpt and the run spec,',
    `then apply the smallest fix in the working copy at ${worktree}.`,
    'Reply with YAML only:',
    'root_cause: "<one line>"',
    'fix_applied: "<what you changed, or none>"',
  ].join('\n');

const MAX_LADDER_ATTEMPTS = 3;
const VALIDATION_CAP_MIN = 5;

async function logTail(path: string, lines: number): Promise<string> {
  const text = (await readText(path)) ?? '';
  return text.split('\n').slice(-lines - 1).join('\n');
}

function exitCodeOf(log: string): number | null {
  const m = [...log.matchAll(/^EXIT_CODE:(\d+)$/gm)].at(-1);
  return m ? Number(m[1]) : null;
}

const DISCOVERY_PROMPT = [
  'You are the Discovery subagent of an autoiter run (read-only: do not change any file).',
  'Explore the project root and rank candidate trigger commands that exercise it (test suites, benchmarks, scripts).',
  'For each candidate give: command, kind (shell|replay|dataset), score 1-5, rationale.',
  'Then suggest a success_criterion type (all_green / scalar_threshold / convergence_delta / custom) and a primary_goal (correctness / optimization / both).',
].join('\n');

/**
 * Creates the collie autoiter controller: the seed 000 §3.5 entry state machine over files under
 * `<stateRoot>/autoiter/<projectId>`.
 *
 * Each `step()` is one of: the nested-call refusal; Branch A (fresh start + Stage 0); Branch B
 * (recovery chain, write-once run-spec.md, worktree, prepare, state.json init; a failed chain removes
 * current-run and falls back to Branch A); Branch C by state.json status: `running` runs the
 * persisted stage (Stage 1 kickoff, Stage 2 trigger, Stage 3 observe, one Stage 3.2 ladder attempt,
 * Stage 4a triage, Stage 4b deep verify, Stage 5.0 G7 + fix-plan, Stage 5.1 flow, Stage 5.2 G6/G1
 * audit, Stage 5.3 rerun), `iter_done` runs Stage 6 (rollback matrix + per-FIX revert, SC1-SC5),
 * a terminal status removes current-run and then emits the completion signal.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options; from `step()` when Stage 0 answers are invalid.
 * @throws {LoopError} from `step()`: `STATE_CORRUPT` (state.json or run-spec.md malformed),
 *   `STATE_WRITE_FAILED`, `PROPOSER_FAILED` (the agent failed), `HARNESS_FAILED` (the trigger's log
 *   cannot be opened), `NOT_A_REPOSITORY` (git worktree failed). A failed step changes nothing that
 *   the next step cannot redo.
 */
export function createAutoiter(options: AutoiterOptions): Autoiter {
  const o = parseOptions(autoiterOptionsSchema, options, 'collie');
  const env = o.env ?? process.env;
  const paths = resolveColliePaths(o.stateRoot, o.projectId, o.sessionId);
  const workspace = o.workspace ?? createDirectoryWorkspace(o.projectDir);
  const preparer = o.preparer ?? noPrepare();
  const notifyCmd = env.COLLIE_AUTOITER_NOTIFY_CMD;
  const notifier = o.notifier ?? (notifyCmd ? createNotifyCommand(notifyCmd) : noNotify());
  const flow = o.flow ?? createAgentFlowExecutor(o.agent);
  const escalate = o.escalate ?? ((reason: string, id: string) => o.output(`[autoiter] escalate ${reason} ${id}`));
  const createHarness =
    o.createHarness ??
    ((r: TriggerRun) => createCommandHarness({ command: r.invocation, cwd: r.cwd, logFile: r.logFile, timeBudgetMs: r.timeoutMs, killTimeoutMs: r.timeoutMs, env: r.env }));
  const iso = () => new Date(o.clock.now()).toISOString();
  const tick = (runId: string, text: string) => o.output(`[autoiter ${runId}] ${text}`);

  const observe = async (rp: RunPaths, status: string, log?: string) => {
    await writeTextAtomic(rp.status, `${status}\n`);
    if (log !== undefined) await appendText(rp.userLog, `${log}\n`);
  };

  // Branch A: fresh start, then Stage 0 in the same unit (the seed runs them in one session).
  const freshStart = async (recoveryFailed?: string): Promise<StepOutcome> => {
    const runId = formatRunId(o.clock.now(), o.randomHex());
    await mkdir(paths.projectDir, { recursive: true });
    await writeTextAtomic(paths.currentRun, `${runId}\n`);
    tick(runId, 'Stage 0 → Discovery & Lock');
    const discovery = await o.agent.run({ role: 'discovery', tier: 'fast', prompt: DISCOVERY_PROMPT, inputs: { 'project root': o.projectDir } });
    const answers = await o.asker.ask(stage0Questions(discovery));
    const spec = runSpecFromAnswers(answers, { task: o.task, scalarExtraction: o.scalarExtraction, maxIterations: o.maxIterations, maxTokens: o.maxTokens, maxWallclockMin: o.maxWallclockMin });
    const planFile = join(paths.planDir, `autoiter-${runId}.md`);
    await writeTextAtomic(planFile, renderPlanFile(planFile, spec));
    await writeJsonAtomic(paths.lastPlan, { planFile, runId });
    tick(runId, 'Stage 0 → run spec written; restart to continue');
    return { kind: 'stage0', runId, ...(recoveryFailed ? { recoveryFailed } : {}) };
  };

  // The recovery chain: last-plan.json → plan file → plan-source. Returns the source or why it failed.
  const recoveryChain = async (runId: string): Promise<{ source: string } | { failed: string }> => {
    let last: unknown;
    try {
      last = await readJson(paths.lastPlan);
    } catch {
      return { failed: 'last-plan.json is not valid JSON' };
    }
    const parsed = z.object({ planFile: z.string(), runId: z.string() }).safeParse(last);
    if (!parsed.success) return { failed: last === undefined ? 'last-plan.json is missing' : 'last-plan.json is malformed' };
    if (parsed.data.runId !== runId) return { failed: `last-plan.json belongs to run ${parsed.data.runId}` };
    const plan = await readText(parsed.data.planFile);
    if (plan === undefined) return { failed: `plan file ${parsed.data.planFile} is missing` };
    const source = planSourceOf(plan);
    if (source === undefined) return { failed: 'plan file has no plan-source line in its first 3 lines' };
    if (!(await exists(source))) return { failed: `plan-source ${source} is missing` };
    return { source };
  };

  // Branch B: every action idempotent, so a kill anywhere inside is redone by the next step.
  const branchB = async (runId: string): Promise<StepOutcome> => {
    const rp = paths.run(runId);
    if (!(await exists(rp.runSpec))) {
      const chain = await recoveryChain(runId);
      if ('failed' in chain) {
        await removeFile(paths.currentRun);
        return freshStart(chain.failed);
      }
      await mkdir(rp.dir, { recursive: true });
      await copyAtomic(chain.source, rp.runSpec); // cp only: never rendered or edited
    }
    const spec = parseRunSpec((await readText(rp.runSpec)) ?? '', rp.runSpec);
    let worktree = (await readText(rp.worktreePath))?.trim();
    if (!worktree) {
      worktree = await workspace.prepare(runId);
      await writeTextAtomic(rp.worktreePath, `${worktree}\n`);
    }
    const existing = await readRunState(rp.state);
    if (existing) return { kind: 'recovered', runId, status: existing.status };
    if (!spec.skip_prepare && !(await exists(rp.prepareReport))) {
      const result = await preparer.prepare({ runId, projectId: o.projectId, runSpecPath: rp.runSpec, reportPath: rp.prepareReport, worktreePath: worktree, spec });
      if (!result.ok) {
        await observe(rp, `iter 1/${spec.budget.max_iterations} · Stage 0.5 · PREPARE FAILED`, `## prepare · ${iso()}\nPrepare failed.\n${result.report.trim()}`);
        await notifier.notify({ event: 'prepare_failed', runId, statusFile: rp.status });
        await writeRunState(rp.state, { ...initialRunState(runId, o.clock.now()), status: 'escalated', should_continue: false, stop_reason: 'prepare_failed' });
        return { kind: 'recovered', runId, status: 'escalated' };
      }
      await writeTextAtomic(rp.prepareReport, result.report);
    }
    await writeRunState(rp.state, initialRunState(runId, o.clock.now()));
    return { kind: 'recovered', runId, status: 'running' };
  };

  const terminal = async (state: RunState): Promise<StepOutcome> => {
    await removeFile(paths.currentRun); // crash-safe order: rm current-run THEN emit
    tick(state.runId, `All done — status=${state.status}`);
    o.output(COMPLETION_SIGNAL);
    return { kind: 'done', runId: state.runId, status: state.status, signal: COMPLETION_SIGNAL };
  };

  const triggerRun = async (state: RunState, spec: RunSpec, rp: RunPaths, logFile: string, capMin = Number.POSITIVE_INFINITY) => {
    const cwd = (await readText(rp.worktreePath))?.trim() || o.projectDir;
    const timeoutMs = Math.round(Math.min(triggerTimeoutMin(spec), capMin) * 60_000);
    const harness = createHarness({ invocation: spec.trigger.invocation, cwd, logFile, timeoutMs, env: { [ACTIVE_FLAG]: '1' } });
    const record = await harness.run({ iteration: state.iter, signal: new AbortController().signal });
    await appendText(logFile, `EXIT_CODE:${record.exitCode ?? (record.timedOut ? 124 : 137)}\n`);
    const scorer = createRegexScorer({ pattern: spec.trigger.scalar_extraction, direction: 'maximize', requireZeroExit: false });
    const score = await scorer.score({ ...record, logPath: logFile });
    const log = (await readText(logFile)) ?? '';
    const lastLine = log.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('EXIT_CODE:')).at(-1) ?? '';
    return { exitCode: record.exitCode, scalar: score.ok ? score.value : null, errorSignature: record.exitCode === 0 ? null : lastLine.replace(/\d+/g, 'N').trim() || `exit ${record.exitCode}` };
  };

  const stopFacts = (state: RunState, spec: RunSpec): CollieStopState['collie'] => ({
    iterations: state.iterations.map((i) => ({ iter: i.iter, scalar: i.scalar_after, delta: i.scalar_delta, allGreen: i.exit_code === 0, errorSignature: i.error_signature, filesChanged: i.files_changed })),
    baselineScalar: state.baseline_scalar,
    tokensUsed: state.tokens_used,
    maxTokens: spec.budget.max_tokens === 'unlimited' ? null : spec.budget.max_tokens,
    maxIterations: spec.budget.max_iterations,
    maxWallclockMin: spec.budget.max_wallclock_min === 'unlimited' ? null : spec.budget.max_wallclock_min,
    successCriterion: spec.success_criterion,
  });

  const summaryText = (n: number, e: IterationEntry, convergence: boolean, decision: string) =>
    [
      `# Summary — iter-${n}`,
      `scalar_before: ${e.scalar_before ?? 'none'}`,
      `scalar_after: ${e.scalar_after ?? 'none'}`,
      `scalar_delta: ${e.scalar_delta ?? 'none'}`,
      `convergence: ${convergence ? 'yes' : 'no'}`,
      `decision: ${decision}`,
      `fixes_applied: [${e.fixes_applied.join(', ')}]`,
      ...(e.fixes_applied.length > 0 ? [`files_changed: ${e.files_changed ?? 'none'}`] : []),
      ...(e.rollback ? ['', '## rollback_log', `row: ${e.rollback.row}`, ...e.rollback.reverted.map((r) => `- ${r.id} reverted (commit ${r.commit}) in ${e.rollback?.commit}`), ...(e.rollback.reverted.length === 0 ? ['- nothing reverted'] : [])] : []),
      '',
    ].join('\n');

  const worktreeOf = async (rp: RunPaths) => (await readText(rp.worktreePath))?.trim() || o.projectDir;
  const gitCtx = async (rp: RunPaths): Promise<GitContext> => ({ cwd: await worktreeOf(rp), now: o.clock.now() });

  /** The FIX records Deep Verify wrote for this iteration's verified issues (sorted by id). */
  const verifiedFixes = async (ip: IterPaths): Promise<FixRecord[]> => {
    const triage = readTriageText((await readText(ip.triage)) ?? '');
    const out: FixRecord[] = [];
    for (const issue of routeRecords(triage).toVerify) {
      const text = await readText(ip.fix(fixIdOf(issue)));
      if (text !== undefined) out.push(parseFixRecord(text));
    }
    return out.sort((a, b) => a.id.localeCompare(b.id));
  };
  /** The Stage 5.0-eligible FIXes (G8 + G2), in the plan's DAG order. */
  const eligibleFixes = async (ip: IterPaths): Promise<FixRecord[]> => {
    const eligible = (await verifiedFixes(ip)).filter((f) => deepVerifyGate(f).route === 'eligible');
    const order = fixBatches(eligible).flat();
    return order.map((id) => eligible.find((f) => f.id === id)!);
  };
  /** Escalates from inside an iteration (G6, G1, G7): status.md, user-log, escalate, notify, status escalated. */
  const escalateRun = async (state: RunState, rp: RunPaths, statusLine: string, reason: string, detail: string, event: NotifyEvent): Promise<void> => {
    await observe(rp, statusLine, `## escalated · ${iso()}\n${reason}: ${detail}`);
    await escalate(reason, state.runId);
    await notifier.notify({ event, runId: state.runId, statusFile: rp.status });
    await writeRunState(rp.state, { ...state, status: 'escalated', should_continue: false, stop_reason: `${reason}: ${detail}` });
  };

  const running = async (state: RunState, spec: RunSpec, rp: RunPaths): Promise<StepOutcome> => {
    const n = state.iter;
    const m = spec.budget.max_iterations;
    const ip = rp.iter(n);
    const id = state.runId;
    if (state.stage === 'kickoff') {
      await mkdir(ip.fixes, { recursive: true });
      const worktree = (await readText(rp.worktreePath))?.trim() || o.projectDir;
      const head = workspace.head ? await workspace.head(worktree) : 'none';
      const baseline = state.last_scalar ?? 'none (first iter)';
      if (!(await exists(ip.kickoff))) {
        const pool = parseDeferred((await readText(rp.progress)) ?? '');
        const goal = n === 1 ? 'first iteration: observe the trigger and record the scalar' : `iteration ${n}: continue from iter-${n - 1} (scalar ${state.last_scalar ?? 'none'}); DEFERRED pool: ${pool.length === 0 ? 'empty' : pool.map((d) => `${d.id} (iter-${d.iter}, ${d.tag})`).join(', ')}`;
        await writeTextAtomic(ip.kickoff, [`# Kickoff — iter-${n}`, `git_head: ${head}`, `baseline_metric: ${baseline}`, `iter_goal: ${goal}`, `timestamp: ${iso()}`, ''].join('\n'));
      }
      await observe(rp, `iter ${n}/${m} · Stage 1 · Kickoff · preparing trigger`, `## iter-${n} · ${iso()}\nKickoff. HEAD: ${head}. Baseline scalar: ${baseline}.`);
      tick(id, `iter-${n} Stage 1 → Kickoff`);
      await writeRunState(rp.state, { ...state, stage: 'trigger' });
      return { kind: 'stage', runId: id, iter: n, stage: 'stage1', status: 'running' };
    }
    if (state.stage === 'trigger') {
      await observe(rp, `iter ${n}/${m} · Stage 2 · Running trigger · 0s elapsed`);
      tick(id, `iter-${n} Stage 2 → trigger running (timeout: ${triggerTimeoutMin(spec)}min)`);
      const r = await triggerRun(state, spec, rp, ip.rawLog);
      const baseline = n === 1 && state.baseline_scalar === null ? r.scalar : state.baseline_scalar;
      await writeRunState(rp.state, { ...state, baseline_scalar: baseline, stage: 'observe' });
      return { kind: 'stage', runId: id, iter: n, stage: 'stage2', status: 'running' };
    }
    if (state.stage === 'observe') {
      // Stage 3.1: the observer (fast tier) parses the log; this process never parses > 50 lines itself.
      const tail = await logTail(ip.rawLog, 200);
      const reply = await o.agent.run({ role: 'observe', tier: 'fast', prompt: OBSERVE_PROMPT, inputs: { 'raw.log (last 200 lines)': tail, 'run-spec.md': (await readText(rp.runSpec)) ?? '' } });
      const issues = parseObservations(reply);
      await writeTextAtomic(ip.observations, renderObservations(issues));
      const exitCode = exitCodeOf((await readText(ip.rawLog)) ?? '');
      const nBlocking = issues.filter((i) => i.blocking).length;
      const blocking = nBlocking > 0 || exitCode !== 0;
      await observe(rp, `iter ${n}/${m} · Stage 3 · Observing · ${issues.length} issues found`);
      tick(id, `iter-${n} Stage 3 → ${issues.length} issues recorded, ${nBlocking} blocking${exitCode !== 0 ? ` (exit code ${exitCode ?? 'none'})` : ''}`);
      await writeRunState(rp.state, { ...state, stage: blocking ? 'recover' : 'triage', ladder: blocking ? { tier: ladderStartTier(issues), attempts: [] } : null });
      return { kind: 'stage', runId: id, iter: n, stage: 'stage3', status: 'running' };
    }
    if (state.stage === 'recover') {
      // Stage 3.2: one ladder attempt per step: diagnose + fix (dispatched), 5-minute validation rerun.
      const ladder = state.ladder ?? { tier: 'fast' as const, attempts: [] };
      const attempt = ladder.attempts.length + 1;
      const lastLog = attempt === 1 ? ip.rawLog : join(ip.dir, `recovery-${attempt - 1}.log`);
      const worktree = (await readText(rp.worktreePath))?.trim() || o.projectDir;
      let rootCause: string;
      let fixApplied: string;
      try {
        const reply = await o.agent.run({ role: 'diagnose', tier: ladder.tier, prompt: diagnosePrompt(worktree), inputs: { 'raw.log (last 200 lines)': await logTail(lastLog, 200), 'run-spec.md': (await readText(rp.runSpec)) ?? '' } });
        const parsed = z.object({ root_cause: z.coerce.string().default(''), fix_applied: z.coerce.string().default('') }).safeParse((() => { try { return parseYaml(reply); } catch { return undefined; } })());
        rootCause = parsed.success && parsed.data.root_cause ? parsed.data.root_cause : reply.trim().split('\n')[0] ?? '';
        fixApplied = parsed.success ? parsed.data.fix_applied : '';
      } catch (error) {
        rootCause = `diagnostic agent failed: ${(error as Error).message}`;
        fixApplied = 'none';
      }
      const validationLog = join(ip.dir, `recovery-${attempt}.log`);
      const r = await triggerRun(state, spec, rp, validationLog, VALIDATION_CAP_MIN);
      const record: LadderAttempt = { attempt, tier: ladder.tier, root_cause: rootCause, fix_applied: fixApplied, result: r.exitCode === 0 ? 'pass' : 'fail' };
      const attempts = [...ladder.attempts, record];
      tick(id, `iter-${n} Stage 3 → recovery attempt ${attempt} (${TIER_MODELS[ladder.tier]}): ${record.result}`);
      if (record.result === 'pass') {
        await appendText(rp.userLog, `Auto-recovery succeeded on attempt ${attempt} (${TIER_MODELS[ladder.tier]}): ${rootCause}\n`);
        await writeRunState(rp.state, { ...state, stage: 'triage', ladder: { tier: ladder.tier, attempts } });
        return { kind: 'stage', runId: id, iter: n, stage: 'stage3.2', status: 'running' };
      }
      if (attempt < MAX_LADDER_ATTEMPTS) {
        await writeRunState(rp.state, { ...state, ladder: { tier: upgradeTier(ladder.tier), attempts } });
        return { kind: 'stage', runId: id, iter: n, stage: 'stage3.2', status: 'running' };
      }
      const report = [`# Blocker report — iter-${n}`, '', ...attempts.flatMap((a) => [`## Attempt ${a.attempt}`, `- model: ${TIER_MODELS[a.tier]}`, `- root_cause: ${a.root_cause}`, `- fix_applied: ${a.fix_applied || 'none'}`, `- result: ${a.result}`, ''])].join('\n');
      await writeTextAtomic(join(ip.dir, 'blocker-report.md'), report);
      await observe(rp, `iter ${n}/${m} · Stage 3 · BLOCKED · auto-recovery ladder exhausted`, `## blocked · ${iso()}\nAuto-recovery ladder exhausted after ${attempt} attempts; see iter-${n}/blocker-report.md.`);
      await escalate('blocker_unrecoverable', id);
      await notifier.notify({ event: 'blocker_unrecoverable', runId: id, statusFile: rp.status });
      await writeRunState(rp.state, { ...state, status: 'escalated', should_continue: false, stop_reason: 'blocker_unrecoverable', ladder: { tier: ladder.tier, attempts } });
      return { kind: 'stage', runId: id, iter: n, stage: 'stage3.2', status: 'escalated' };
    }
    if (state.stage === 'triage') {
      // Stage 4a: one deep-tier (opus) triage agent, "reverse suspicion" prompt (G3), then G8.
      const obsText = (await readText(ip.observations)) ?? '';
      const issues = parseObservations(obsText);
      let triage = readTriageText((await readText(ip.triage)) ?? '');
      if (issues.length > 0 && !(await exists(ip.triage))) {
        const prompt = triagePrompt();
        const g3 = checkG3(prompt, obsText, G3_TRIAGE);
        if (!g3.ok) throw new LoopError('CONFIG_INVALID', `[loop] [collie] the triage prompt fails G3 (missing ${g3.missingPhrases.join(', ') || 'none'}, ${g3.verbatimLines.length} verbatim lines)`);
        const reply = await o.agent.run({ role: 'triage', tier: 'deep', prompt, inputs: { 'observations.md': obsText, 'run-spec.md': (await readText(rp.runSpec)) ?? '', 'progress.md': (await readText(rp.progress)) ?? '' } });
        const known = new Set(issues.map((i) => i.id));
        triage = parseTriage(reply).filter((t) => known.has(t.issue));
      }
      await writeTextAtomic(ip.triage, renderTriage(n, triage));
      const routed = routeRecords(triage);
      await addDeferred(rp.progress, id, n, routed.deferred);
      const nReal = triage.filter((t) => t.verdict === 'Real').length;
      await observe(rp, `iter ${n}/${m} · Stage 4a · Triage · ${nReal} Real, ${routed.deferred.length} DEFERRED`, `Triage: ${triage.length} issues → ${routed.toVerify.length} to Deep Verify, ${routed.deferred.length} DEFERRED, ${routed.dropped.length} discarded.`);
      tick(id, `iter-${n} Stage 4a → triage complete (${triage.length} → ${routed.toVerify.length} to Deep Verify)`);
      await writeRunState(rp.state, { ...state, stage: 'verify' });
      return { kind: 'stage', runId: id, iter: n, stage: 'stage4a', status: 'running' };
    }
    if (state.stage === 'verify') {
      // Stage 4b: one deep-tier adversarial agent per issue, in parallel (p-limit); each FIX-nnn.md is
      // written as soon as its agent returns, so a restarted step only redoes the missing ones.
      const triage = readTriageText((await readText(ip.triage)) ?? '');
      const toVerify = routeRecords(triage).toVerify;
      const issues = parseObservations((await readText(ip.observations)) ?? '');
      const runSpecText = (await readText(rp.runSpec)) ?? '';
      await observe(rp, `iter ${n}/${m} · Stage 4b · Deep Verify · ${toVerify.length} FIX in verification`);
      tick(id, `iter-${n} Stage 4b → ${toVerify.length} issues in parallel Deep Verify`);
      const limit = pLimit(o.deepVerifyConcurrency);
      const results = await Promise.allSettled(
        toVerify.map((issueId) =>
          limit(async () => {
            const fixId = fixIdOf(issueId);
            if (await exists(ip.fix(fixId))) return;
            const prompt = deepVerifyPrompt(issueId, fixId);
            const issue = issues.filter((i) => i.id === issueId);
            const t = triage.find((x) => x.issue === issueId)!;
            const g3 = checkG3(prompt, renderObservations(issue), G3_DEEP_VERIFY);
            if (!g3.ok) throw new LoopError('CONFIG_INVALID', `[loop] [collie] the deep-verify prompt of ${issueId} fails G3`);
            const reply = await o.agent.run({ role: 'deep-verify', tier: 'deep', prompt, inputs: { [`observations.md (${issueId})`]: renderObservations(issue), [`triage.md (${issueId})`]: renderTriage(n, [t]), 'run-spec.md': runSpecText } });
            const parsed = parseFixRecord(reply);
            const fix: FixRecord = { ...parsed, id: fixId, uncertainty_tag: t.verdict === 'Unclear' ? 'triage_unclear' : parsed.uncertainty_tag };
            await writeTextAtomic(ip.fix(fixId), renderFixRecord(fix));
          }),
        ),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      const fixes = await verifiedFixes(ip);
      const routed = routeRecords([], fixes);
      await addDeferred(rp.progress, id, n, routed.deferred);
      await appendText(rp.userLog, `Deep Verify: ${fixes.length} FIX records, ${routed.eligible.length} eligible, ${routed.deferred.length} DEFERRED.\n`);
      await writeRunState(rp.state, { ...state, stage: 'plan' });
      return { kind: 'stage', runId: id, iter: n, stage: 'stage4b', status: 'running' };
    }
    if (state.stage === 'plan') {
      // Stage 5.0: G7 first, then fix-plan.md from the eligible FIX records only (never reads source).
      const eligible = await eligibleFixes(ip);
      const prev = n > 1 ? planTaskText((await readText(rp.iter(n - 1).fixPlan)) ?? '') : '';
      const g7 = g7Check(eligible.map((f) => f.fix_outline.trim()).join('\n'), prev, state.iterations.map((i) => i.scalar_delta));
      if (g7.deadlock) {
        await writeTextAtomic(ip.summary, [`# Summary — iter-${n}`, `g7_jaccard: ${g7.ratio.toFixed(3)}`, `g7_bucket: ${g7.bucket}`, `g7_consecutive_delta0: ${g7.consecutiveDelta0}`, 'decision: stop_escalated', ''].join('\n'));
        await escalateRun(state, rp, `iter ${n}/${m} · Stage 5.0 · G7 DEADLOCK · jaccard=${g7.ratio.toFixed(3)} bucket=${g7.bucket}`, 'loop_no_progress', `G7 bucket ${g7.bucket} with ${g7.consecutiveDelta0} consecutive zero deltas`, 'deadlock');
        tick(id, `iter-${n} Stage 5.0 → G7 deadlock (bucket ${g7.bucket}), escalated`);
        return { kind: 'stage', runId: id, iter: n, stage: 'stage5.0', status: 'escalated' };
      }
      const e2e = [`trigger: ${spec.trigger.invocation}`, `success_criterion: ${spec.success_criterion.type}${spec.success_criterion.threshold === null ? '' : ` ${spec.success_criterion.threshold}`}`, `primary_goal: ${spec.primary_goal}`].join('\n');
      await writeTextAtomic(ip.fixPlan, renderFixPlan(eligible, { planPath: ip.fixPlan, iter: n, e2e }));
      await observe(rp, `iter ${n}/${m} · Stage 5.0 · Building fix-plan · ${eligible.length} FIX eligible`);
      tick(id, `iter-${n} Stage 5.0 → fix-plan.md built (${eligible.length} FIX)`);
      await writeRunState(rp.state, { ...state, stage: 'flow' });
      return { kind: 'stage', runId: id, iter: n, stage: 'stage5.0', status: 'running' };
    }
    if (state.stage === 'flow') {
      // Stage 5.1: the flow executor applies each FIX in DAG order; each becomes one commit carrying
      // `Collie-Fix: iter-N/FIX-nnn`, recorded in flow.json before the next FIX starts.
      const eligible = await eligibleFixes(ip);
      let ledger: FlowLedger | undefined = await readLedger(ip.flow);
      if (eligible.length === 0) {
        ledger = { base: null, applied: [] };
        await writeLedger(ip.flow, ledger);
      } else {
        const ctx = await gitCtx(rp);
        if (!ledger) {
          // Uncommitted worktree changes (Stage 3.2 fixes, trigger artifacts) get their own commit before the base.
          if (await isDirty(ctx)) await commitAll(ctx, `chore(autoiter): iter-${n} worktree changes before the fixes\n\n${FIX_TRAILER}: iter-${n}/pre`);
          ledger = { base: await headSha(ctx), applied: [] };
          await writeLedger(ip.flow, ledger);
        }
        const planText = (await readText(ip.fixPlan)) ?? '';
        for (const fix of eligible) {
          if (ledger.applied.some((a) => a.id === fix.id)) continue;
          let commit = await findCommit(ctx, ledger.base!, FIX_TRAILER, `iter-${n}/${fix.id}`);
          let note = '';
          if (!commit) {
            if (await isDirty(ctx)) await discardChanges(ctx); // a FIX whose apply was interrupted
            note = (await flow.apply({ fix, iter: n, worktree: ctx.cwd, planPath: ip.fixPlan, planText })) || '';
            commit = await commitAll(ctx, `autoiter iter-${n} ${fix.id}: ${(fix.fix_outline.trim().split('\n')[0] ?? '').slice(0, 72)}\n\n${FIX_TRAILER}: iter-${n}/${fix.id}`);
          }
          const files: ChangedFile[] = commit ? await commitFiles(ctx, commit) : [];
          ledger = { ...ledger, applied: [...ledger.applied, { id: fix.id, kind: fix.kind, commit, files, note }] };
          await writeLedger(ip.flow, ledger);
          await appendText(rp.userLog, `${fix.id} (${fix.kind}): ${commit ? `commit ${commit.slice(0, 12)}, ${files.length} files` : 'no change'}${note ? ` — ${note}` : ''}\n`);
        }
      }
      const commits = ledger.applied.filter((a) => a.commit).length;
      await observe(rp, `iter ${n}/${m} · Stage 5.1 · flow · ${commits} FIX committed`);
      tick(id, `iter-${n} Stage 5.1 → flow applied ${ledger.applied.length} FIX (${commits} commits)`);
      await writeRunState(rp.state, { ...state, stage: 'audit' });
      return { kind: 'stage', runId: id, iter: n, stage: 'stage5.1', status: 'running' };
    }
    if (state.stage === 'audit') {
      // Stage 5.2: G6 (every changed file traceable to a FIX's key files) and G1 (no test file
      // changed unless a correctness FIX adds its reproduction test as a new key file).
      const ledger = (await readLedger(ip.flow)) ?? { base: null, applied: [] };
      const eligible = await eligibleFixes(ip);
      const changed = [...new Set(ledger.applied.flatMap((a) => a.files.map((f) => f.path)))].sort();
      const untraceable = g6DiffAudit(changed, eligible);
      const g1 = ledger.applied.flatMap((a) => g1TestFileGuard(a.files, eligible.filter((f) => f.id === a.id)).map((c) => `${a.id}: ${c.path} (${c.status})`));
      await writeTextAtomic(ip.audit, [`# Audit — iter-${n}`, '', `## G6 diff audit: ${untraceable.length === 0 ? 'PASS' : 'FAIL'}`, `- changed files: ${changed.join(', ') || '(none)'}`, ...untraceable.map((f) => `- untraceable: ${f} (not in any FIX's key files)`), '', `## G1 test-file guard: ${g1.length === 0 ? 'PASS' : 'FAIL'}`, ...g1.map((v) => `- ${v}`), ''].join('\n'));
      tick(id, `iter-${n} Stage 5.2 → G6 diff audit ${untraceable.length === 0 ? 'PASS' : 'FAIL'}, G1 ${g1.length === 0 ? 'PASS' : 'FAIL'}`);
      if (untraceable.length > 0) {
        await escalateRun(state, rp, `iter ${n}/${m} · Stage 5.2 · G6 diff audit FAIL · ${untraceable.length} untraceable files`, 'g6_diff_audit_failed', untraceable.join(', '), 'escalated');
        return { kind: 'stage', runId: id, iter: n, stage: 'stage5.2', status: 'escalated' };
      }
      if (g1.length > 0) {
        await escalateRun(state, rp, `iter ${n}/${m} · Stage 5.2 · G1 test-file guard FAIL · ${g1.length} test files`, 'g1_test_file_guard', g1.join('; '), 'escalated');
        return { kind: 'stage', runId: id, iter: n, stage: 'stage5.2', status: 'escalated' };
      }
      await writeRunState(rp.state, { ...state, stage: 'rerun' });
      return { kind: 'stage', runId: id, iter: n, stage: 'stage5.2', status: 'running' };
    }
    // Stage 5.3: rerun and record the scalar, the FIXes applied and the files they changed (SC5).
    const ledger = (await readLedger(ip.flow)) ?? { base: null, applied: [] };
    const r = await triggerRun(state, spec, rp, ip.rerunLog);
    const before = state.last_scalar ?? state.baseline_scalar;
    const delta = r.scalar !== null && before !== null ? r.scalar - before : null;
    const entry: IterationEntry = { iter: n, scalar_before: before, scalar_after: r.scalar, scalar_delta: delta, exit_code: r.exitCode, error_signature: r.errorSignature, files_changed: new Set(ledger.applied.flatMap((a) => a.files.map((f) => f.path))).size, fixes_applied: ledger.applied.filter((a) => a.commit).map((a) => a.id), rollback: null };
    const next: RunState = { ...state, last_scalar: r.scalar, status: 'iter_done', ladder: null, iterations: [...state.iterations.filter((i) => i.iter !== n), entry] };
    const eps = convergenceEpsilon(stopFacts(next, spec));
    await writeTextAtomic(ip.summary, summaryText(n, entry, delta !== null && Math.abs(delta) <= eps, 'pending'));
    await observe(rp, `iter ${n}/${m} · Stage 5.3 · Rerun done · scalar=${r.scalar ?? 'none'} (was ${before ?? 'none'}, Δ=${delta ?? 'none'})`, `Iter ${n}: rerun exit ${r.exitCode}, scalar ${r.scalar ?? 'none'} (was ${before ?? 'none'}).`);
    tick(id, `iter-${n} Stage 5.3 → rerun done, scalar=${r.scalar ?? 'none'}`);
    await writeRunState(rp.state, next);
    return { kind: 'stage', runId: id, iter: n, stage: 'stage5.3', status: 'iter_done' };
  };

  const DECISION: Record<string, string> = { SC1: 'stop_cap', SC2: 'stop_converged', SC3: 'stop_converged', SC4: 'stop_budget', SC5: 'stop_escalated' };
  const EVENT: Record<string, NotifyEvent> = { converged: 'autoiter_done', budget_exhausted: 'budget_exhausted', escalated: 'escalated' };

  // Stage 6 rollback: the matrix decides; each reverted FIX's single commit is reverted with
  // `git revert --no-commit`, then one commit (trailer `Collie-Revert: iter-N`) records them all.
  const rollback = async (state: RunState, spec: RunSpec, rp: RunPaths): Promise<RunState> => {
    const n = state.iter;
    const entry = state.iterations.find((i) => i.iter === n);
    if (!entry || entry.rollback) return state;
    const ledger = (await readLedger(rp.iter(n).flow)) ?? { base: null, applied: [] };
    const applied = ledger.applied.filter((a): a is typeof a & { commit: string } => a.commit !== null);
    if (applied.length === 0) return state;
    const decision = decideRollback(spec.primary_goal, entry.scalar_delta, applied);
    let commit: string | null = null;
    const reverted = applied.filter((a) => decision.revert.includes(a.id)).map((a) => ({ id: a.id, commit: a.commit }));
    if (reverted.length > 0) {
      const ctx = await gitCtx(rp);
      commit = await findCommit(ctx, ledger.base!, REVERT_TRAILER, `iter-${n}`);
      if (!commit) {
        await git(ctx, 'reset', '-q', '--merge'); // drop a half-done revert of an interrupted step; keeps unstaged files
        await git(ctx, 'revert', '--no-commit', ...reverted.map((r) => r.commit).reverse());
        await git(ctx, 'commit', '-q', '--no-verify', '-m', `chore: revert optimization FIX(es) due to scalar regression (iter-${n})\n\n${reverted.map((r) => `Reverts ${r.id} ${r.commit}`).join('\n')}\n${REVERT_TRAILER}: iter-${n}`);
        commit = await headSha(ctx);
      }
      await appendText(rp.userLog, `Rollback (${decision.row}): reverted ${reverted.map((r) => r.id).join(', ')} in ${commit.slice(0, 12)}.\n`);
    }
    const next: IterationEntry = { ...entry, rollback: { row: decision.row, reverted, commit } };
    return { ...state, iterations: state.iterations.map((i) => (i.iter === n ? next : i)) };
  };

  const stage6 = async (state: RunState, spec: RunSpec, rp: RunPaths): Promise<StepOutcome> => {
    const n = state.iter;
    const id = state.runId;
    state = await rollback(state, spec, rp);
    const facts = stopFacts(state, spec);
    const verdict = evaluateStopChecks(collieStopState(facts, state.started_at, o.clock.now()));
    const entry = state.iterations.find((i) => i.iter === n);
    const convergence = entry?.scalar_delta !== null && entry?.scalar_delta !== undefined && Math.abs(entry.scalar_delta) <= convergenceEpsilon(facts);
    if (verdict) {
      const reason = `${verdict.decision.reason}: ${verdict.decision.message}`;
      if (entry) await writeTextAtomic(rp.iter(n).summary, summaryText(n, entry, convergence, DECISION[verdict.decision.reason] ?? 'stop'));
      const total = state.last_scalar !== null && state.baseline_scalar !== null ? state.last_scalar - state.baseline_scalar : 'none';
      await observe(rp, `DONE · ${reason} · scalar=${state.last_scalar ?? 'none'} (baseline=${state.baseline_scalar ?? 'none'}, Δ=${total})`, `## done · ${iso()}\nStopped: ${reason}. Final status ${verdict.status}.`);
      if (verdict.decision.reason === 'SC5') await escalate('stop_steps_counter', id);
      await notifier.notify({ event: EVENT[verdict.status] ?? 'escalated', runId: id, statusFile: rp.status });
      await writeRunState(rp.state, { ...state, status: verdict.status, should_continue: false, stop_reason: reason });
      tick(id, `Stage 6 → STOP (${reason})`);
      return { kind: 'stage', runId: id, iter: n, stage: 'stage6', status: verdict.status };
    }
    if (entry) await writeTextAtomic(rp.iter(n).summary, summaryText(n, entry, convergence, 'continue'));
    await writeRunState(rp.state, { ...state, iter: n + 1, status: 'running', stage: 'kickoff' });
    tick(id, `Stage 6 → continue to iter-${n + 1}`);
    return { kind: 'stage', runId: id, iter: n, stage: 'stage6', status: 'running' };
  };

  const step = async (): Promise<StepOutcome> => {
    if (env[ACTIVE_FLAG]) {
      // Nested call: escalate and stop. The outer run owns current-run: do not remove it.
      await escalate('nested_loop_call', o.projectId);
      return { kind: 'nested-refused' };
    }
    const runId = (await readText(paths.currentRun))?.trim();
    if (!runId) return freshStart();
    const rp = paths.run(runId);
    if (!(await exists(rp.runSpec))) return branchB(runId);
    const state = await readRunState(rp.state);
    if (!state) return branchB(runId); // state.json missing: same as Branch B
    if (isTerminal(state.status)) return terminal(state);
    const spec = parseRunSpec((await readText(rp.runSpec)) ?? '', rp.runSpec);
    if (state.status === 'iter_done') return stage6(state, spec, rp);
    return running(state, spec, rp);
  };

  return {
    paths,
    step,
    run: async ({ maxSteps = 10_000 } = {}) => {
      const outcomes: StepOutcome[] = [];
      for (let i = 0; i < maxSteps; i += 1) {
        const out = await step();
        outcomes.push(out);
        if (out.kind === 'done' || out.kind === 'nested-refused') return outcomes;
      }
      throw new LoopError('STATE_CORRUPT', `[loop] [collie] the run did not reach a terminal state within ${maxSteps} steps; inspect ${paths.projectDir}`, { details: { maxSteps } });
    },
  };
}
