import { LoopError, type Clock } from '@loop/core';
import { z } from 'zod';
import { writeChangelogEntry } from '../changelog.js';
import { artifactsCommitMessage, codeCommitMessage, type Committer } from '../committer.js';
import { appendExclusions, readExclusions } from '../exclusions.js';
import { writeParkedIssues } from '../issues-log.js';
import { readLoopState, writeLoopState, type LoopStateFile } from '../loop-state.js';
import type { AutotunePaths } from '../paths.js';
import type { RoundContext, RoundEvaluation, RoundPlan, RoundWorker } from '../round-worker.js';
import { failedAttempts, recordRound, writeScoreboard, type Scoreboard } from '../scoreboard.js';
import { decideRecommendedAction } from '../stop-criteria.js';
import type { SyncCheck } from '../sync-check.js';

/** What one orchestrated round needs. */
export interface RoundRunOptions {
  dir: string;
  paths: AutotunePaths;
  worker: RoundWorker;
  syncCheck: SyncCheck;
  committer: Committer;
  clock: Clock;
  maxFailedAttempts: number;
  round: number;
  state: LoopStateFile;
  scoreboard: Scoreboard;
}

const planSchema = z.object({
  summary: z.string(),
  targets: z.array(z.string().min(1)),
  changed: z.boolean().optional(),
});
const evaluationSchema = z.object({
  tasks: z.array(
    z.object({
      id: z.string().min(1),
      passed: z.boolean(),
      priority: z.enum(['high', 'medium', 'low']).optional(),
      detail: z.string().optional(),
    }),
  ),
  rationales: z.record(z.string(), z.string()).optional(),
});

function checkResult<T>(schema: z.ZodType<T>, value: unknown, worker: string, step: string, code: 'PROPOSER_FAILED' | 'HARNESS_FAILED'): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const list = result.error.issues.map((i) => `field ${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new LoopError(code, `[loop] [autotune] round worker "${worker}" returned an invalid ${step} result: ${list}`, { cause: result.error, details: { worker, step } });
}

async function call<T>(fn: () => T | Promise<T>, worker: string, step: string, code: 'PROPOSER_FAILED' | 'HARNESS_FAILED'): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof LoopError) throw error;
    throw new LoopError(code, `[loop] [autotune] round worker "${worker}" failed in ${step}: ${(error as Error).message}; loop_state.json is unchanged, so the next iteration runs this round again`, { cause: error, details: { worker, step } });
  }
}

/**
 * One orchestrated round (seed 004 step 4): improve -> code commit -> sync check -> evaluate ->
 * scoreboard -> analysis (stop criteria) -> exclusions and issues.md when exhausted -> changelog ->
 * loop_state.json `last_round` (the last write) -> artifacts commit.
 */
export async function runRound(options: RoundRunOptions): Promise<void> {
  const { paths, worker, round, clock } = options;
  const at = new Date(clock.now()).toISOString();
  const excluded = await readExclusions(paths.exclusions);
  const context: RoundContext = Object.freeze({ round, dir: options.dir, state: options.state, scoreboard: options.scoreboard, excluded: Object.freeze([...excluded]) });

  // Step 1 of /autotune: code changes, committed as feat(agent): autotune round N — <summary>.
  const plan: RoundPlan = checkResult(planSchema, await call(() => worker.improve(context), worker.name, 'improve', 'PROPOSER_FAILED'), worker.name, 'improve', 'PROPOSER_FAILED');
  const codeCommitted = plan.changed !== false;
  if (codeCommitted) await options.committer.commit({ kind: 'code', round, message: codeCommitMessage(round, plan.summary), files: [] });

  // Verify sync before the evaluation: running it on stale code wastes the round.
  let sync: { ok: true } | { ok: false; reason: string };
  try {
    sync = await options.syncCheck.verify({ round, dir: options.dir, codeCommitted });
  } catch (error) {
    sync = { ok: false, reason: (error as Error).message };
  }
  const targets = [...new Set(plan.targets)].filter((id) => !excluded.includes(id));
  const written: string[] = [];

  if (!sync.ok) {
    const reason = `stale: sync check "${options.syncCheck.name}" failed: ${sync.reason}; evaluation skipped, no attempt counted`;
    await writeChangelogEntry(paths.changelog, { round, at, outcome: 'stale', action: 'continue', summary: plan.summary, targets: [], reason, parked: [] });
    written.push(paths.changelog);
    await finishRound(options, { round, recommended_action: 'continue', outcome: 'stale', reason, summary: plan.summary, targets, parked: [], finished_at: at }, written);
    return;
  }

  const evaluation: RoundEvaluation = checkResult(evaluationSchema, await call(() => worker.evaluate({ ...context, plan }), worker.name, 'evaluate', 'HARNESS_FAILED'), worker.name, 'evaluate', 'HARNESS_FAILED');
  const byId = new Map(evaluation.tasks.map((t) => [t.id, t]));
  const attempts = targets.map((target) => ({ target, outcome: byId.get(target)?.passed === true ? ('fixed' as const) : ('failed' as const) }));
  const scoreboard = recordRound(options.scoreboard, round, attempts, evaluation.tasks, at);
  await writeScoreboard(paths.scoreboard, scoreboard);
  written.push(paths.scoreboard);

  const decision = decideRecommendedAction({ plan: { ...plan, targets }, evaluation, scoreboard, excluded, maxFailedAttempts: options.maxFailedAttempts });
  let parked: string[] = [];
  if (decision.action === 'stop_exhausted' && decision.park.length > 0) {
    parked = [...decision.park];
    await appendExclusions(paths.exclusions, parked);
    written.push(paths.exclusions);
    await writeParkedIssues(
      paths.issues,
      round,
      decision.reason,
      parked.map((id) => {
        const rounds = (scoreboard.targets[id]?.attempts ?? []).filter((a) => a.outcome === 'failed').map((a) => a.round);
        const parts = [`failed ${failedAttempts(scoreboard, id)} targeted attempt(s)${rounds.length > 0 ? ` (rounds ${rounds.join(', ')})` : ''}`];
        const detail = byId.get(id)?.detail;
        if (detail !== undefined) parts.push(`last failure: ${detail}`);
        const rationale = evaluation.rationales?.[id];
        if (rationale !== undefined) parts.push(rationale);
        return { id, rationale: `${parts.join('; ')}.` };
      }),
    );
    written.push(paths.issues);
  }
  await writeChangelogEntry(paths.changelog, {
    round,
    at,
    outcome: 'evaluated',
    action: decision.action,
    summary: plan.summary,
    targets: attempts.map((a) => ({ id: a.target, outcome: a.outcome, failedAttempts: failedAttempts(scoreboard, a.target) })),
    passed: evaluation.tasks.filter((t) => t.passed).length,
    total: evaluation.tasks.length,
    reason: decision.reason,
    parked,
  });
  written.push(paths.changelog);
  await finishRound(options, { round, recommended_action: decision.action, outcome: 'evaluated', reason: decision.reason, summary: plan.summary, targets, parked, finished_at: at }, written);
}

/** Writes loop_state.json's last_round (the last write of the round), then commits the artifacts. */
async function finishRound(options: RoundRunOptions, lastRound: NonNullable<LoopStateFile['last_round']>, written: string[]): Promise<void> {
  const current = await readLoopState(options.paths.loopState);
  await writeLoopState(options.paths.loopState, { ...current, last_round: lastRound, updated_at: lastRound.finished_at });
  await options.committer.commit({
    kind: 'artifacts',
    round: lastRound.round,
    message: artifactsCommitMessage(lastRound.round, lastRound.recommended_action),
    files: [options.paths.loopState, ...written],
  });
}
