import { readText } from '../internal/fs.js';
import type { ChangedFile } from '../diff-guards.js';
import { commitAll, commitFiles, discardChanges, findCommit, FIX_TRAILER, headSha, isDirty, NOTE_TRAILER, trailerOf } from '../git.js';
import type { RunPaths } from '../paths.js';
import type { RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import { readLedger, writeLedger, type FlowLedger } from '../stage-files.js';
import type { Ctx, StepOutcome } from './context.js';

/**
 * Stage 5.1 (seed 000 `Skill('collie:flow')`): the flow executor applies each FIX in DAG order;
 * each becomes one commit carrying `Collie-Fix: iter-N/FIX-nnn`, recorded in flow.json before the
 * next FIX starts. A committed FIX (found by its trailer) is never applied twice; a half-applied one
 * is discarded and redone.
 */
export async function stageFlow(c: Ctx, state: RunState, spec: RunSpec, rp: RunPaths): Promise<StepOutcome> {
  const n = state.iter;
  const ip = rp.iter(n);
  const eligible = await c.eligibleFixes(ip);
  let ledger: FlowLedger | undefined = await readLedger(ip.flow);
  if (eligible.length === 0) {
    ledger = { base: null, applied: [] };
    await writeLedger(ip.flow, ledger);
  } else {
    const ctx = await c.gitCtx(rp);
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
      let note = commit ? await trailerOf(ctx, commit, NOTE_TRAILER) : '';
      if (!commit) {
        if (await isDirty(ctx)) await discardChanges(ctx); // a FIX whose apply was interrupted
        note = ((await c.flow.apply({ fix, iter: n, worktree: ctx.cwd, planPath: ip.fixPlan, planText, pidDir: rp.pids })) || '').replace(/\s*\n\s*/g, ' ').trim();
        const noteLine = note ? `${NOTE_TRAILER}: ${note}\n` : '';
        commit = await commitAll(ctx, `autoiter iter-${n} ${fix.id}: ${(fix.fix_outline.trim().split('\n')[0] ?? '').slice(0, 72)}\n\n${noteLine}${FIX_TRAILER}: iter-${n}/${fix.id}`);
      }
      const files: ChangedFile[] = commit ? await commitFiles(ctx, commit) : [];
      ledger = { ...ledger, applied: [...ledger.applied, { id: fix.id, kind: fix.kind, commit, files, note }] };
      await writeLedger(ip.flow, ledger);
      await c.logOnce(rp, `iter-${n}/flow/${fix.id}`, `${fix.id} (${fix.kind}): ${commit ? `commit ${commit.slice(0, 12)}, ${files.length} files` : 'no change'}${note ? ` — ${note}` : ''}`);
    }
  }
  const commits = ledger.applied.filter((a) => a.commit).length;
  await c.observe(rp, `iter ${n}/${spec.budget.max_iterations} · Stage 5.1 · flow · ${commits} FIX committed`);
  c.tick(state.runId, `iter-${n} Stage 5.1 → flow applied ${ledger.applied.length} FIX (${commits} commits)`);
  await c.persist(rp, { ...state, stage: 'audit' });
  return { kind: 'stage', runId: state.runId, iter: n, stage: 'stage5.1', status: 'running' };
}
