import { createStepMachine, type StepContext, type StepMachine, type StepTransition } from '@loop/core/step-machine';
import { artifactsCommitMessage, completionCommitMessage } from '../committer.js';
import { readExclusions } from '../exclusions.js';
import { readLoopStateFile, writeLoopStateFile, type LastRound, type LoopStateFile } from '../loop-state-file.js';
import { readScoreboard, scoreboardBefore } from '../scoreboard.js';
import { iterationDataSchema, type IterationData } from './iteration-data.js';
import type { IterationEnv } from './iteration-env.js';
import { evaluateStep, improveStep, recordStaleStep, recordStep } from './round-steps.js';

type Ctx = StepContext<IterationData>;
type Next = StepTransition<IterationData>;

const isStop = (last: LastRound | null): boolean =>
  last !== null && (last.recommended_action === 'stop_success' || last.recommended_action === 'stop_exhausted');

const readState = (env: IterationEnv, ctx: Ctx) =>
  ctx.effect('read-state', () => readLoopStateFile(env.paths.loopState), { idempotent: true });

/**
 * Step `enter` (seed 004 steps 1-3): read loop_state.json; complete: report and finish; a last round
 * that recommended stop_success / stop_exhausted: go straight to `complete` (a kill between that
 * write and `status: complete` must not run another round, issue 11 fault 8); otherwise take the
 * round's start snapshot, mark the run auto / running, and go to `improve`.
 */
async function enterStep(env: IterationEnv, ctx: Ctx): Promise<Next> {
  const at = await ctx.effect('clock', () => new Date(env.clock.now()).toISOString(), { idempotent: true });
  const state = await readState(env, ctx);
  if (state.status === 'complete')
    return {
      finish: true,
      data: { ...ctx.data, at, end: { outcome: 'already-complete', report: completeReport(state), state } },
    };
  if (isStop(state.last_round)) return { next: 'complete', data: { ...ctx.data, at, round: null } };
  const round = (state.last_round?.round ?? 0) + 1;
  const scoreboard = await ctx.effect('read-scoreboard', () => readScoreboard(env.paths.scoreboard), {
    idempotent: true,
  });
  const excluded = await ctx.effect('read-exclusions', () => readExclusions(env.paths.exclusions), {
    idempotent: true,
  });
  let running = state;
  if (state.mode !== 'auto' || state.status !== 'running') {
    running = { ...state, mode: 'auto', status: 'running', updated_at: at };
    await ctx.effect('mark-running', () => writeLoopStateFile(env.paths.loopState, running), { idempotent: true });
  }
  return {
    next: 'improve',
    data: {
      ...ctx.data,
      at,
      round,
      context: { state: running, scoreboard: scoreboardBefore(scoreboard, round), excluded },
    },
  };
}

function completeReport(state: LoopStateFile): string {
  return (
    `autotune loop complete after ` +
    `round ${state.last_round?.round ?? 0}: ${state.stop_reason ?? '(no stop reason recorded)'}`
  );
}

/** The artifacts commit of a recorded round: loop_state.json first, then what the round wrote. */
function artifactsCommit(env: IterationEnv, ctx: Ctx, last: LastRound, written: readonly string[]): Promise<void> {
  const files = [env.paths.loopState, ...written];
  return ctx.effect(
    'artifacts-commit',
    async () =>
      void (await env.committer.commit({
        kind: 'artifacts',
        round: last.round,
        message: artifactsCommitMessage(last.round, last.recommended_action),
        files,
      })),
    { idempotent: true },
  );
}

/**
 * Step `commit-artifacts` (end of seed 004 step 4, then step 5): the end-of-round artifacts commit,
 * then loop_state.json re-read from disk; a stop recommendation goes to `complete`, otherwise the
 * iteration finishes with `continue` (step 7).
 */
async function commitArtifactsStep(env: IterationEnv, ctx: Ctx): Promise<Next> {
  await artifactsCommit(env, ctx, ctx.data.lastRound!, ctx.data.written ?? []);
  const after = await ctx.effect('re-read-state', () => readLoopStateFile(env.paths.loopState), { idempotent: true });
  if (isStop(after.last_round)) return { next: 'complete' };
  const last = after.last_round;
  const report =
    `autotune round ${ctx.data.round} done (${last?.outcome ?? 'unknown'}): continue; ${last?.reason ?? ''}`.trim();
  return { finish: true, data: { ...ctx.data, end: { outcome: 'continue', report, state: after } } };
}

/**
 * Step `complete` (seed 004 step 6): `status: complete` with `stop_reason: <action>: <reason>`,
 * then its commit. Entered from `enter` (the previous process stopped after recording a stop
 * recommendation and before completing), it first makes that round's artifacts commit, which a
 * kill may have lost (a commit of nothing new makes no commit).
 */
async function completeStep(env: IterationEnv, ctx: Ctx): Promise<Next> {
  const now = await ctx.effect('clock', () => new Date(env.clock.now()).toISOString(), { idempotent: true });
  const state = await readState(env, ctx);
  const last = state.last_round;
  if (last === null || !isStop(last))
    return {
      finish: true,
      data: {
        ...ctx.data,
        end: { outcome: 'continue', report: `autotune: last_round no longer recommends a stop; continue`, state },
      },
    };
  if (ctx.data.round === null) {
    const { paths } = env;
    await artifactsCommit(
      env,
      ctx,
      last,
      last.parked.length > 0
        ? [paths.scoreboard, paths.exclusions, paths.issues, paths.changelog]
        : [paths.scoreboard, paths.changelog],
    );
  }
  const stopReason = `${last.recommended_action}: ${last.reason}`;
  const done: LoopStateFile = { ...state, status: 'complete', stop_reason: stopReason, updated_at: now };
  await ctx.effect('complete', () => writeLoopStateFile(env.paths.loopState, done), { idempotent: true });
  await ctx.effect(
    'completion-commit',
    async () =>
      void (await env.committer.commit({
        kind: 'artifacts',
        round: last.round,
        message: completionCommitMessage(stopReason),
        files: [env.paths.loopState],
      })),
    { idempotent: true },
  );
  const parked = last.parked.length > 0 ? `; parked: ${last.parked.join(', ')}` : '';
  return {
    finish: true,
    data: {
      ...ctx.data,
      end: {
        outcome: 'completed',
        report: `autotune loop complete after round ${last.round}: ${stopReason}${parked}`,
        state: done,
      },
    },
  };
}

/**
 * The controller iteration as a core step machine: enter -> improve -> evaluate | record-stale ->
 * record -> commit-artifacts -> complete, its cursor and journal in `env.stepDir`, the lock on
 * loop_state.json. Each write and commit runs exactly once across kills: every effect is either
 * recorded done (not run again) or re-runnable (reads, whole-file writes of computed bytes,
 * commits that make nothing when there is nothing new, the worker's steps re-asked with the
 * round's start snapshot).
 */
export function createIterationMachine(env: IterationEnv): StepMachine<IterationData> {
  return createStepMachine<IterationData>({
    name: 'autotune',
    dir: env.stepDir,
    start: 'enter',
    dataSchema: iterationDataSchema,
    lockPath: env.paths.loopState,
    lockHolder: 'another autotune iteration holds this workspace',
    lockStaleMs: env.lockStaleMs,
    hooks: env.hooks,
    steps: {
      enter: (ctx) => enterStep(env, ctx),
      improve: (ctx) => improveStep(env, ctx),
      evaluate: (ctx) => evaluateStep(env, ctx),
      'record-stale': (ctx) => recordStaleStep(env, ctx),
      record: (ctx) => recordStep(env, ctx),
      'commit-artifacts': (ctx) => commitArtifactsStep(env, ctx),
      complete: (ctx) => completeStep(env, ctx),
    },
  });
}
