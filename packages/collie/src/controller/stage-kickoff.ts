import { isLoopError } from '@loop/core';
import { writeTextAtomic } from '@loop/core/files';
import { readText } from '../internal/read-text.js';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { headSha } from '@loop/rollback-git/git';
import type { RunPaths } from '../paths.js';
import type { RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import { parseDeferred } from '../stage-files.js';
import { startIterationAnchors } from '../task-anchors.js';
import type { StageContext } from './stage-context.js';
import type { AutoiterStepOutcome } from './step-outcome.js';

/**
 * Stage 1 (seed 000): Step 0 task anchors first (previous iteration's anchors completed, or deleted
 * when its rollback reverted a FIX; six anchors for this iteration; stage-1 in_progress), then
 * iter-N/kickoff.md (skipped when it exists: idempotent), status.md, user-log.md and the tick.
 */
export async function stageKickoff(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  const n = state.iter;
  const ip = rp.iter(n);
  const prev = state.iterations.find((i) => i.iter === n - 1);
  await startIterationAnchors(c.tasks(rp, state.runId), n, {
    previousRolledBack: (prev?.rollback?.reverted.length ?? 0) > 0,
  });
  await mkdir(ip.fixes, { recursive: true });
  const worktree = await c.worktreeOf(rp);
  const head = c.workspace.head ? await c.workspace.head(worktree) : 'none';
  // Where the iteration's real branch diff starts (G1 / G6 audit it whoever commits); null outside git.
  const iterStart = c.workspace.head
    ? head
    : existsSync(join(worktree, '.git'))
      ? await headSha(await c.gitCtx(rp)).catch((e: unknown) =>
          isLoopError(e) && e.code === 'NOT_A_REPOSITORY' ? null : Promise.reject(e),
        )
      : null;
  const baseline = state.last_scalar ?? (n === 1 ? 'none (first iter)' : 'none');
  if (!existsSync(ip.kickoff)) {
    const pool = parseDeferred((await readText(rp.progress)) ?? '');
    const goal =
      n === 1
        ? 'first iteration: observe the trigger and record the scalar'
        : `iteration ${n}: continue from iter-${n - 1} ` +
          `(scalar ${state.last_scalar ?? 'none'}); DEFERRED ` +
          `pool: ${pool.length === 0 ? 'empty' : pool.map((d) => `${d.id} (iter-${d.iter}, ${d.tag})`).join(', ')}`;
    await writeTextAtomic(
      ip.kickoff,
      [
        `# Kickoff — iter-${n}`,
        `git_head: ${head}`,
        `baseline_metric: ${baseline}`,
        `iter_goal: ${goal}`,
        `timestamp: ${c.iso()}`,
        '',
      ].join('\n'),
    );
  }
  await c.observe(
    rp,
    `iter ${n}/${spec.budget.max_iterations} · Stage 1 · Kickoff · preparing trigger`,
    `## iter-${n} · ${c.iso()}\nKickoff. HEAD: ${head}. Baseline scalar: ${baseline}.`,
    `iter-${n}/kickoff`,
  );
  c.tick(state.runId, `iter-${n} Stage 1 → Kickoff`);
  await c.persist(rp, { ...state, stage: 'trigger', iter_start: iterStart });
  return { kind: 'stage', runId: state.runId, iter: n, stage: 'stage1', status: 'running' };
}
