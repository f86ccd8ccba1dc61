import { LoopError } from '@loop/core';
import { type StepContext, type StepTransition } from '@loop/core/step-machine';
import { writeChangelogEntry } from '../changelog.js';
import { codeCommitMessage } from '../committer.js';
import { appendExclusions } from '../exclusions.js';
import { writeParkedIssues } from '../issues-log.js';
import { readLoopStateFile, writeLoopStateFile, type LastRound } from '../loop-state-file.js';
import type { RoundContext } from '../round-worker.js';
import { failedAttempts, recordRound, writeScoreboard } from '../scoreboard.js';
import { decideRecommendedAction } from '../stop-criteria.js';
import type { SyncResult } from '../sync-check.js';
import { evaluationSchema, planSchema, type IterationData } from './iteration-data.js';
import type { IterationEnv } from './iteration-env.js';
import { callWorker } from './worker-call.js';

type Ctx = StepContext<IterationData>;
type Next = StepTransition<IterationData>;

/** The round's fields, present from the `improve` step on. */
function roundOf(data: IterationData): { round: number; context: NonNullable<IterationData['context']> } {
  if (data.round === null || data.context === undefined)
    throw new LoopError(
      'STATE_CORRUPT',
      '[loop] [autotune] the step cursor is inside a round but names no round; ' +
        'delete the step directory to start the iteration again',
      { details: { field: 'data.round' } },
    );
  return { round: data.round, context: data.context };
}

function workerContext(env: IterationEnv, data: IterationData): RoundContext {
  const { round, context } = roundOf(data);
  return Object.freeze({
    round,
    dir: env.dir,
    state: context.state,
    scoreboard: context.scoreboard,
    excluded: Object.freeze([...context.excluded]),
  });
}

/**
 * Step `improve` (/autotune Step 1): the worker's code changes, the code commit
 * (`feat(agent): autotune round N — <summary>`), then the sync check. The worker is re-asked after
 * an interruption, with the round's start snapshot; a commit is re-requested (committers make no
 * commit when there is nothing new); a throwing sync check is a failed one.
 */
export async function improveStep(env: IterationEnv, ctx: Ctx): Promise<Next> {
  const { round } = roundOf(ctx.data);
  const context = workerContext(env, ctx.data);
  const plan = await ctx.effect(
    'improve',
    () => callWorker(() => env.worker.improve(context), planSchema, env.worker.name, 'improve', 'PROPOSER_FAILED'),
    { idempotent: true },
  );
  const codeCommitted = plan.changed !== false;
  if (codeCommitted)
    await ctx.effect(
      'code-commit',
      () => env.committer.commit({ kind: 'code', round, message: codeCommitMessage(round, plan.summary), files: [] }),
      { idempotent: true },
    );
  const sync = await ctx.effect(
    'sync-check',
    async (): Promise<SyncResult> => {
      try {
        const result = await env.syncCheck.verify({ round, dir: env.dir, codeCommitted });
        return result.ok ? { ok: true } : { ok: false, reason: String(result.reason) };
      } catch (error) {
        return { ok: false, reason: (error as Error).message };
      }
    },
    { idempotent: true },
  );
  const data = { ...ctx.data, plan, codeCommitted, sync };
  return { next: sync.ok ? 'evaluate' : 'record-stale', data };
}

/** Step `evaluate`: the worker's evaluation of the synced code (re-run after an interruption). */
export async function evaluateStep(env: IterationEnv, ctx: Ctx): Promise<Next> {
  const context = workerContext(env, ctx.data);
  const plan = ctx.data.plan!;
  const evaluation = await ctx.effect(
    'evaluate',
    () =>
      callWorker(
        () => env.worker.evaluate({ ...context, plan }),
        evaluationSchema,
        env.worker.name,
        'evaluate',
        'HARNESS_FAILED',
      ),
    { idempotent: true },
  );
  return { next: 'record', data: { ...ctx.data, evaluation } };
}

/** Writes loop_state.json's `last_round`: the last write of the round (each re-run writes the same). */
async function writeLastRound(env: IterationEnv, ctx: Ctx, lastRound: LastRound): Promise<void> {
  await ctx.effect(
    'last-round',
    async () => {
      const current = await readLoopStateFile(env.paths.loopState);
      await writeLoopStateFile(env.paths.loopState, {
        ...current,
        last_round: lastRound,
        updated_at: lastRound.finished_at,
      });
    },
    { idempotent: true },
  );
}

/**
 * Step `record`: scoreboard.json (one attempt per target), the stop criteria, the exclusions and
 * issues.md when exhausted, the changelog entry, then `last_round`. Every write is computed from
 * the carried data, so re-running one after a kill writes the same bytes.
 */
export async function recordStep(env: IterationEnv, ctx: Ctx): Promise<Next> {
  const { round, context } = roundOf(ctx.data);
  const plan = ctx.data.plan!;
  const evaluation = ctx.data.evaluation!;
  const at = ctx.data.at;
  const { paths } = env;
  const targets = [...new Set(plan.targets)].filter((id) => !context.excluded.includes(id));
  const byId = new Map(evaluation.tasks.map((t) => [t.id, t]));
  const attempts = targets.map((target) => ({
    target,
    outcome: byId.get(target)?.passed === true ? ('fixed' as const) : ('failed' as const),
  }));
  const scoreboard = recordRound(context.scoreboard, round, attempts, evaluation.tasks, at);
  const written: string[] = [];
  await ctx.effect('scoreboard', () => writeScoreboard(paths.scoreboard, scoreboard), { idempotent: true });
  written.push(paths.scoreboard);

  const decision = decideRecommendedAction({
    plan: { ...plan, targets },
    evaluation,
    scoreboard,
    excluded: context.excluded,
    maxFailedAttempts: env.maxFailedAttempts,
  });
  let parked: string[] = [];
  if (decision.action === 'stop_exhausted' && decision.park.length > 0) {
    parked = [...decision.park];
    await ctx.effect('exclusions', () => appendExclusions(paths.exclusions, parked), { idempotent: true });
    written.push(paths.exclusions);
    const rationales = parked.map((id) => {
      const rounds = (scoreboard.targets[id]?.attempts ?? []).filter((a) => a.outcome === 'failed').map((a) => a.round);
      const parts = [
        `failed ${failedAttempts(scoreboard, id)} targeted ` +
          `attempt(s)${rounds.length > 0 ? ` (rounds ${rounds.join(', ')})` : ''}`,
      ];
      const detail = byId.get(id)?.detail;
      if (detail !== undefined) parts.push(`last failure: ${detail}`);
      const rationale = evaluation.rationales?.[id];
      if (rationale !== undefined) parts.push(rationale);
      return { id, rationale: `${parts.join('; ')}.` };
    });
    await ctx.effect('issues', () => writeParkedIssues(paths.issues, round, decision.reason, rationales), {
      idempotent: true,
    });
    written.push(paths.issues);
  }
  const entry = {
    round,
    at,
    outcome: 'evaluated' as const,
    action: decision.action,
    summary: plan.summary,
    targets: attempts.map((a) => ({
      id: a.target,
      outcome: a.outcome,
      failedAttempts: failedAttempts(scoreboard, a.target),
    })),
    passed: evaluation.tasks.filter((t) => t.passed).length,
    total: evaluation.tasks.length,
    reason: decision.reason,
    parked,
  };
  await ctx.effect('changelog', () => writeChangelogEntry(paths.changelog, entry), { idempotent: true });
  written.push(paths.changelog);
  const lastRound: LastRound = {
    round,
    recommended_action: decision.action,
    outcome: 'evaluated',
    reason: decision.reason,
    summary: plan.summary,
    targets,
    parked,
    finished_at: at,
  };
  await writeLastRound(env, ctx, lastRound);
  return { next: 'commit-artifacts', data: { ...ctx.data, lastRound, written } };
}

/**
 * Step `record-stale`: the sync check failed, so no evaluation and no attempt: a changelog entry and `last_round`
 * (`stale`, `continue`).
 */
export async function recordStaleStep(env: IterationEnv, ctx: Ctx): Promise<Next> {
  const { round, context } = roundOf(ctx.data);
  const plan = ctx.data.plan!;
  const sync = ctx.data.sync;
  const at = ctx.data.at;
  const why = sync !== undefined && !sync.ok ? sync.reason : 'unknown';
  const reason = `stale: sync check "${env.syncCheck.name}" failed: ${why}; evaluation skipped, no attempt counted`;
  await ctx.effect(
    'changelog',
    () =>
      writeChangelogEntry(env.paths.changelog, {
        round,
        at,
        outcome: 'stale',
        action: 'continue',
        summary: plan.summary,
        targets: [],
        reason,
        parked: [],
      }),
    { idempotent: true },
  );
  const targets = [...new Set(plan.targets)].filter((id) => !context.excluded.includes(id));
  const lastRound: LastRound = {
    round,
    recommended_action: 'continue',
    outcome: 'stale',
    reason,
    summary: plan.summary,
    targets,
    parked: [],
    finished_at: at,
  };
  await writeLastRound(env, ctx, lastRound);
  return { next: 'commit-artifacts', data: { ...ctx.data, lastRound, written: [env.paths.changelog] } };
}
