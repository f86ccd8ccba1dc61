import { readText } from './internal/read-text.js';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { LoopError, parseOptions } from '@loop/core';
import { killOrphanGroup, killOrphanGroups } from '@loop/core/process';
import { acquireLock, type WorkspaceLock } from '@loop/core/files';
import { ACTIVE_FLAG, type AutoiterOptions } from './autoiter-options.js';
import { autoiterOptionsSchema } from './autoiter-options-schema.js';
import { normalizeAutoiterOptions } from './deprecated-options.js';
import { anchoredAgent, type CurrentAnchor } from './controller/anchor-drift.js';
import { createStageContext } from './controller/stage-context.js';
import type { AutoiterStepOutcome } from './controller/step-outcome.js';
import { createCollieStepMachine } from './controller/step-machine.js';
import { finishRun, freshStart, recoverFromPlan } from './controller/entry.js';
import { runningStage } from './controller/running.js';
import { stageRollbackStop } from './controller/stage-rollback-stop.js';
import { createAgentFlowExecutor } from './flow-executor.js';
import type { Agent } from './agent.js';
import { createNotifyCommand, noNotify } from './run-end-notifier.js';
import { resolveColliePaths, type ColliePaths, type RunPaths } from './paths.js';
import { noPrepare } from './preparer.js';
import { isTerminal, readRunState } from './run-state.js';
import { parseRunSpec } from './run-spec.js';
import { anchorStageOf } from './task-anchors.js';
import { createFileTaskTracker, type TaskTracker } from './task-tracker.js';
import { meterAgent, type MeterTarget } from './token-meter.js';
import { createDirectoryWorkspace } from './workspace.js';

export { ACTIVE_FLAG } from './autoiter-options.js';
export { autoiterOptionsSchema } from './autoiter-options-schema.js';
export type { AutoiterOptions, TriggerRun, TaskTrackerRun } from './autoiter-options.js';
export { COMPLETION_SIGNAL, formatRunId } from './controller/entry.js';
export type { StageName, AutoiterStepOutcome } from './controller/step-outcome.js';
export { AnchorDriftError } from './controller/anchor-drift.js';

/** The autoiter controller. */
export interface Autoiter {
  /** The resolved file layout. */
  readonly paths: ColliePaths;
  /**
   * Performs one resumable unit of §3.5 and persists its effect before returning. Calling it again
   * (in this process or a new one) continues from the files alone. Holds the controller lock while
   * it runs.
   *
   * @throws {LoopError} `LOCK_HELD` when another live controller is stepping this project's run, or
   *   a `step()` / `run()` of this instance has not finished.
   */
  readonly step: () => Promise<AutoiterStepOutcome>;
  /**
   * Calls `step()` until `done` or `nested-refused` (at most `maxSteps` times, holding the lock throughout) and returns
   * every outcome.
   */
  readonly run: (options?: { maxSteps?: number }) => Promise<AutoiterStepOutcome[]>;
}

/**
 * Creates the collie autoiter controller: the seed 000 §3.5 entry state machine over files under
 * `<stateRoot>/autoiter/<projectId>`.
 *
 * Each `step()` is one of: the nested-call refusal; Branch A (fresh start + Stage 0); Branch B
 * (recovery chain, write-once run-spec.md, worktree, prepare with retry/abort when interactive,
 * state.json init; a failed chain removes current-run and falls back to Branch A); Branch C by
 * state.json status: `running` runs the persisted stage (Stage 1 kickoff with task anchors, Stage 2
 * trigger with the blocking-pattern monitor, Stage 3 observe, one Stage 3.2 ladder attempt, Stage
 * 4a triage, Stage 4b deep verify, Stage 5.0 G7 + fix-plan, Stage 5.1 flow, Stage 5.2 G6/G1 audit,
 * Stage 5.3 rerun), `iter_done` runs Stage 6 (rollback matrix + per-FIX revert, SC1-SC5), a
 * terminal status removes current-run and then emits the completion signal.
 *
 * Every agent dispatch is metered into `<run>/tokens.jsonl` (SC4's tokens_used) and checked for
 * stage-anchor drift when long.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options; from `step()` when Stage 0 answers are invalid.
 * @throws {LoopError} from `step()`: `LOCK_HELD` (another controller is stepping), `STATE_CORRUPT`
 *   (state.json, tasks.json or run-spec.md malformed), `STATE_WRITE_FAILED`, `PROPOSER_FAILED` (the
 *   agent failed), `HARNESS_FAILED` (the trigger's log cannot be opened), `NOT_A_REPOSITORY` (git
 *   worktree failed). A failed step changes nothing that the next step cannot redo.
 */
export function createAutoiter(options: AutoiterOptions): Autoiter {
  const o = parseOptions(autoiterOptionsSchema, normalizeAutoiterOptions(options), 'collie');
  const env = o.env ?? process.env;
  const paths = resolveColliePaths(o.files.stateRoot, o.projectId, o.sessionId);
  const notifyCmd = env.COLLIE_AUTOITER_NOTIFY_CMD;

  let meterTarget: MeterTarget | null = null;
  let anchor: CurrentAnchor | null = null;
  let worktree: string | undefined;
  let pidDir: string | undefined;
  const iso = () => new Date(o.clock.now()).toISOString();
  // Dispatches run in the run's worktree once it exists (a request's own cwd wins), and record
  // their process groups under <run>/pids/ so a successor of a SIGKILLed controller can kill them.
  const inWorktree: Agent = {
    name: o.agent.name,
    run: (request) =>
      o.agent.run({
        ...request,
        ...(request.cwd === undefined && worktree !== undefined ? { cwd: worktree } : {}),
        ...(request.pidFile === undefined && pidDir !== undefined
          ? { pidFile: join(pidDir, `agent-${request.role}-${randomBytes(4).toString('hex')}.pgid`) }
          : {}),
      }),
  };
  const agent = meterAgent(
    anchoredAgent(
      inWorktree,
      () => anchor,
      () => o.clock.now(),
    ),
    () => meterTarget,
    iso,
  );

  const trackers = new Map<string, TaskTracker>();
  const tasks = (rp: RunPaths, runId: string): TaskTracker => {
    if (o.tasks && typeof o.tasks !== 'function') return o.tasks;
    let t = trackers.get(runId);
    if (!t) {
      t = typeof o.tasks === 'function' ? o.tasks({ runId, dir: rp.dir }) : createFileTaskTracker(rp.tasks);
      trackers.set(runId, t);
    }
    return t;
  };

  const c = createStageContext({
    options: o,
    env,
    paths,
    workspace: o.workspace ?? createDirectoryWorkspace(o.projectDir),
    preparer: o.preparer ?? noPrepare(),
    notifier: o.notifier ?? (notifyCmd ? createNotifyCommand(notifyCmd) : noNotify()),
    agent,
    flow: typeof o.flow === 'function' ? o.flow(agent) : (o.flow ?? createAgentFlowExecutor(agent)),
    escalate: o.escalate ?? ((reason: string, id: string) => o.output(`[autoiter] escalate ${reason} ${id}`)),
    tasks,
    step: () => machine.current(),
  });
  const setRun = (runId: string, iter: number) => {
    meterTarget = { ledger: paths.run(runId).tokens, iter };
  };

  const stepUnlocked = async (): Promise<AutoiterStepOutcome> => {
    meterTarget = null;
    anchor = null;
    worktree = undefined;
    pidDir = undefined;
    const runId = (await readText(paths.currentRun))?.trim();
    if (!runId) return freshStart(c, setRun);
    const rp = paths.run(runId);
    setRun(runId, 0);
    // We hold the controller lock: any process group still recorded is an orphan of a killed controller.
    await killOrphanGroups(rp.pids, o.run.killGraceMs);
    await killOrphanGroup(rp.triggerPid, o.run.killGraceMs);
    pidDir = rp.pids;
    if (!existsSync(rp.runSpec)) return recoverFromPlan(c, runId, setRun);
    const state = await readRunState(rp.state);
    if (!state) return recoverFromPlan(c, runId, setRun); // state.json missing: same as Branch B
    if (isTerminal(state.status)) return finishRun(c, state);
    const spec = parseRunSpec((await readText(rp.runSpec)) ?? '', rp.runSpec);
    setRun(runId, state.iter);
    worktree = (await readText(rp.worktreePath))?.trim() || undefined;
    if (state.status === 'iter_done') {
      anchor = { tracker: tasks(rp, runId), iter: state.iter, stage: 6 };
      return stageRollbackStop(c, state, spec, rp);
    }
    anchor = { tracker: tasks(rp, runId), iter: state.iter, stage: anchorStageOf(state.stage) };
    return runningStage(c, state, spec, rp);
  };

  // One step at a time: `busy` guards this instance, the controller lock every other process/instance.
  let busy = false;
  const exclusive = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (busy)
      throw new LoopError(
        'LOCK_HELD',
        `[loop] [collie] a step() or run() of this controller is already in progress; await it before calling again`,
        { details: { path: paths.lock } },
      );
    busy = true;
    let lock: WorkspaceLock | undefined;
    try {
      lock = await acquireLock({
        path: paths.lock,
        staleMs: o.recovery.lockStaleMs,
        holder: `another collie controller is stepping project ${o.projectId}`,
      });
      return await fn();
    } finally {
      busy = false;
      await lock?.release();
    }
  };

  const nested = async (): Promise<AutoiterStepOutcome | undefined> => {
    if (!env[ACTIVE_FLAG]) return undefined;
    // Nested call: escalate and stop. The outer run owns current-run: do not remove it.
    await c.escalate('nested_loop_call', o.projectId);
    return { kind: 'nested-refused' };
  };

  const machine = createCollieStepMachine({
    dir: paths.steps,
    lockHolder: `another collie controller is stepping project ${o.projectId}`,
    lockStaleMs: o.recovery.lockStaleMs,
    unit: stepUnlocked,
  });
  const step = async (): Promise<AutoiterStepOutcome> => (await nested()) ?? exclusive(machine.step);

  return {
    paths,
    step,
    run: async ({ maxSteps = 10_000 } = {}) => {
      const refused = await nested();
      if (refused) return [refused];
      return exclusive(async () => {
        const outcomes: AutoiterStepOutcome[] = [];
        for (let i = 0; i < maxSteps; i += 1) {
          const out = await machine.step();
          outcomes.push(out);
          if (out.kind === 'done') return outcomes;
        }
        throw new LoopError(
          'STATE_CORRUPT',
          `[loop] [collie] the run did not reach a terminal state ` +
            `within ${maxSteps} steps; inspect ${paths.projectDir}`,
          { details: { maxSteps } },
        );
      });
    },
  };
}
