import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readJson, writeJsonAtomic, writeTextAtomic } from '@loop/core/files';
import { readText } from '../internal/read-text.js';
import { z } from 'zod';
import { initialRunState, PROMISE_SIGNAL, readRunState, type RunState } from '../run-state.js';
import { parseRunSpec, planSourceOf, renderPlanFile, runSpecFromAnswers, stage0Questions } from '../run-spec.js';
import type { StageContext } from './stage-context.js';
import type { AutoiterStepOutcome } from './step-outcome.js';

/** The completion signal, emitted only by the terminal branch. */
export const COMPLETION_SIGNAL = `<promise>${PROMISE_SIGNAL}</promise>`;

/** `YYYYMMDD-HHMMSS-<hex6>` in UTC (seed 000 Branch A step 1). */
export function formatRunId(nowMs: number, hex: string): string {
  const iso = new Date(nowMs).toISOString(); // 2026-01-02T03:04:05.678Z
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}-${hex.slice(0, 6)}`;
}

const DISCOVERY_PROMPT = [
  'You are the Discovery subagent of an autoiter run (read-only: do not change any file).',
  'Explore the project root and rank candidate trigger commands that exercise it (test suites, benchmarks, scripts).',
  'For each candidate give: command, kind (shell|replay|dataset), score 1-5, rationale.',
  'Then suggest a success_criterion type (all_green / scalar_threshold / ' +
    'convergence_delta / custom) and a primary_goal (correctness / ' +
    'optimization / both).',
].join('\n');

/** Branch A: fresh start, then Stage 0 in the same unit (the seed runs them in one session). */
export async function freshStart(
  c: StageContext,
  setRun: (runId: string, iter: number) => void,
  recoveryFailed?: string,
): Promise<AutoiterStepOutcome> {
  const { options: o, paths } = c;
  const runId = formatRunId(o.clock.now(), o.randomHex());
  await mkdir(paths.projectDir, { recursive: true });
  await writeTextAtomic(paths.currentRun, `${runId}\n`);
  setRun(runId, 0);
  c.tick(runId, 'Stage 0 → Discovery & Lock');
  const discovery = await c.agent.run({
    role: 'discovery',
    tier: 'fast',
    prompt: DISCOVERY_PROMPT,
    inputs: { 'project root': o.projectDir },
  });
  const answers = await o.asker.ask(stage0Questions(discovery));
  const spec = runSpecFromAnswers(answers, {
    task: o.task,
    scalarExtraction: o.score.scalarExtraction,
    maxIterations: o.stop.maxIterations,
    maxTokens: o.stop.maxTokens,
    maxWallclockMin: o.stop.maxWallclockMin,
  });
  const planFile = join(paths.planDir, `autoiter-${runId}.md`);
  await writeTextAtomic(planFile, renderPlanFile(planFile, spec));
  await writeJsonAtomic(paths.lastPlan, { planFile, runId });
  c.tick(runId, 'Stage 0 → run spec written; restart to continue');
  return { kind: 'stage0', runId, ...(recoveryFailed ? { recoveryFailed } : {}) };
}

/** The recovery chain: last-plan.json → plan file → plan-source. Returns the source or why it failed. */
async function recoveryChain(c: StageContext, runId: string): Promise<{ source: string } | { failed: string }> {
  let last: unknown;
  try {
    last = await readJson(c.paths.lastPlan);
  } catch {
    return { failed: 'last-plan.json is not valid JSON' };
  }
  const parsed = z.object({ planFile: z.string(), runId: z.string() }).safeParse(last);
  if (!parsed.success)
    return { failed: last === undefined ? 'last-plan.json is missing' : 'last-plan.json is malformed' };
  if (parsed.data.runId !== runId) return { failed: `last-plan.json belongs to run ${parsed.data.runId}` };
  const plan = await readText(parsed.data.planFile);
  if (plan === undefined) return { failed: `plan file ${parsed.data.planFile} is missing` };
  const source = planSourceOf(plan);
  if (source === undefined) return { failed: 'plan file has no plan-source line in its first 3 lines' };
  if (!existsSync(source)) return { failed: `plan-source ${source} is missing` };
  return { source };
}

/**
 * Seed 000 §3.5 Branch B (current-run exists, run-spec.md does not): recovery chain, write-once
 * run-spec.md (cp only), worktree, prepare, state.json init.
 * Every action is idempotent, so a kill anywhere inside is redone by the next step. A failed
 * prepare asks "retry or abort" when the asker is interactive (`choose`); retry leaves no state so
 * the next step runs prepare again; abort and queued runs escalate with `prepare_failed`.
 */
export async function recoverFromPlan(
  c: StageContext,
  runId: string,
  setRun: (runId: string, iter: number) => void,
): Promise<AutoiterStepOutcome> {
  const { options: o, paths } = c;
  const rp = paths.run(runId);
  if (!existsSync(rp.runSpec)) {
    const chain = await recoveryChain(c, runId);
    if ('failed' in chain) {
      await rm(paths.currentRun, { force: true });
      return freshStart(c, setRun, chain.failed);
    }
    await mkdir(rp.dir, { recursive: true });
    await writeTextAtomic(rp.runSpec, await readFile(chain.source, 'utf8')); // a copy only: never rendered or edited
  }
  const spec = parseRunSpec((await readText(rp.runSpec)) ?? '', rp.runSpec);
  let worktree = (await readText(rp.worktreePath))?.trim();
  if (!worktree) {
    worktree = await c.workspace.prepare(runId);
    await writeTextAtomic(rp.worktreePath, `${worktree}\n`);
  }
  const existing = await readRunState(rp.state);
  if (existing) return { kind: 'recovered', runId, status: existing.status };
  if (!spec.skip_prepare && !existsSync(rp.prepareReport)) {
    const result = await c.preparer.prepare({
      runId,
      projectId: o.projectId,
      runSpecPath: rp.runSpec,
      reportPath: rp.prepareReport,
      worktreePath: worktree,
      spec,
    });
    if (!result.ok) {
      const why =
        result.report
          .trim()
          .split('\n')
          .find((l) => l.trim() !== '' && !l.startsWith('#'))
          ?.trim() ?? 'see the report';
      await c.observe(
        rp,
        `iter 1/${spec.budget.max_iterations} · Stage 0.5 · PREPARE FAILED`,
        `## prepare · ${c.iso()}\nPrepare failed.\n${result.report.trim()}`,
      );
      if (o.asker.choose) {
        const choice = await o.asker.choose(`Prepare failed: ${why}. Fix material and retry, or abort?`, [
          'retry',
          'abort',
        ]);
        if (choice === 'retry') {
          await c.observe(
            rp,
            `iter 1/${spec.budget.max_iterations} · Stage 0.5 · prepare retry requested`,
            'Prepare: retry requested by the user.',
          );
          c.tick(runId, 'Stage 0.5 → prepare failed, retry requested');
          return { kind: 'prepare-retry', runId, report: result.report };
        }
      }
      await c.effectOnce('prepare/notify', () =>
        c.notifier.notify({ event: 'prepare_failed', runId, statusFile: rp.status }),
      );
      const state: RunState = {
        ...initialRunState(runId, o.clock.now()),
        status: 'escalated',
        should_continue: false,
        stop_reason: 'prepare_failed',
      };
      await c.persist(rp, state);
      return { kind: 'recovered', runId, status: 'escalated' };
    }
    await writeTextAtomic(rp.prepareReport, result.report);
  }
  await c.persist(rp, initialRunState(runId, o.clock.now()));
  c.tick(runId, `§3.5 recovery → run-spec.md copied, worktree ${worktree}, state.json initialised (iter 1)`);
  return { kind: 'recovered', runId, status: 'running' };
}

/**
 * Seed 000 §3.5 terminal branch (status converged / budget_exhausted / escalated): rm current-run,
 * THEN print and emit the completion signal (crash-safe order).
 */
export async function finishRun(c: StageContext, state: RunState): Promise<AutoiterStepOutcome> {
  await rm(c.paths.currentRun, { force: true });
  c.tick(state.runId, `All done — status=${state.status}`);
  c.options.output(COMPLETION_SIGNAL);
  return { kind: 'done', runId: state.runId, status: state.status, signal: COMPLETION_SIGNAL };
}
