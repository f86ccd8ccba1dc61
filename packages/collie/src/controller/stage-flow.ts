import { readText } from '../internal/read-text.js';
import type { ChangedFile } from '../diff-audit.js';
import {
  commitAll,
  commitFiles,
  commitsBetween,
  findCommitByTrailer,
  headSha,
  isDirty,
  resetHard,
  squashSince,
  trailerValue,
} from '@loop/rollback-git/git';
import { FIX_TRAILER, NOTE_TRAILER } from '../trailers.js';
import type { RunPaths } from '../paths.js';
import type { RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import { readLedger, writeLedger, type FlowLedger } from '../stage-files.js';
import type { StageContext } from './stage-context.js';
import type { AutoiterStepOutcome } from './step-outcome.js';
import { fixVerdict, guardInputOf, verdictNote } from '../loop-policies.js';
import { collieStopState } from '../stop-checks.js';

/**
 * Stage 5.1 (seed 000 `Skill('collie:flow')`): the flow executor applies each FIX in DAG order;
 * each becomes ONE commit carrying `Collie-Fix: iter-N/FIX-nnn`, recorded in flow.json before the
 * next FIX starts. Whatever the FIX's agent did is in that commit: its uncommitted changes and any
 * commits it made by itself (aider commits by default) are folded in (`squashSince` the FIX's start
 * sha, listed as `Folds <sha>` lines), so G6 / G1 see them and the rollback matrix can revert them.
 * The start sha is recorded in flow.json (`applying`) before the executor runs: a committed FIX
 * (found by its trailer) is never applied twice; a half-applied one (changes or commits since its
 * start) is reset to its start and redone. The user's core guards ({@link LoopPolicies}) are asked
 * about each FIX before it is applied (`beforeEdit`) and after its commit (`beforeRun`): a refused
 * FIX is not applied (its commit is reset), its flow.json note says why; a halt escalates.
 */
export async function stageFlow(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  const n = state.iter;
  const ip = rp.iter(n);
  const eligible = await c.eligibleFixes(ip);
  let ledger: FlowLedger | undefined = await readLedger(ip.flow);
  if (eligible.length === 0) {
    ledger = { base: null, applied: [], applying: null };
    await writeLedger(ip.flow, ledger);
  } else {
    const ctx = await c.gitCtx(rp);
    if (!ledger) {
      // Uncommitted worktree changes (Stage 3.2 fixes, trigger artifacts) get their own commit before the base.
      if (await isDirty(ctx))
        await commitAll(
          ctx,
          `chore(autoiter): iter-${n} worktree changes before the fixes\n\n${FIX_TRAILER}: iter-${n}/pre`,
        );
      ledger = { base: await headSha(ctx), applied: [], applying: null };
      await writeLedger(ip.flow, ledger);
    }
    const planText = (await readText(ip.fixPlan)) ?? '';
    const guardBase = guardInputOf(
      collieStopState(c.stopFacts(state, spec), state.started_at, c.options.clock.now()),
      n,
    );
    const guards = c.policies.guards;
    for (const fix of eligible) {
      if (ledger.applied.some((a) => a.id === fix.id)) continue;
      let commit = await findCommitByTrailer(ctx, ledger.base!, FIX_TRAILER, `iter-${n}/${fix.id}`);
      let note = commit ? await trailerValue(ctx, commit, NOTE_TRAILER) : '';
      let start: string | undefined = ledger.applying?.id === fix.id ? ledger.applying.start : undefined;
      let refused = commit ? undefined : await fixVerdict(guards, 'beforeEdit', guardBase, fix, []);
      if (!commit && !refused) {
        start ??= await headSha(ctx);
        // A FIX whose apply was interrupted: drop its changes and any commit made since its start.
        if ((await headSha(ctx)) !== start || (await isDirty(ctx))) await resetHard(ctx, start);
        if (ledger.applying?.id !== fix.id) {
          ledger = { ...ledger, applying: { id: fix.id, start } };
          await writeLedger(ip.flow, ledger);
        }
        note = (
          (await c.flow.apply({ fix, iter: n, worktree: ctx.cwd, planPath: ip.fixPlan, planText, pidDir: rp.pids })) ||
          ''
        )
          .replace(/\s*\n\s*/g, ' ')
          .trim();
        const noteLine = note ? `${NOTE_TRAILER}: ${note}\n` : '';
        const folded = (await commitsBetween(ctx, start))
          .map((sha) => `Folds ${sha} (committed during the FIX)\n`)
          .join('');
        // The trailers stay the message's last paragraph (git parses only that one).
        commit = await squashSince(
          ctx,
          start,
          `autoiter iter-${n} ${fix.id}: ` +
            `${(fix.fix_outline.trim().split('\n')[0] ?? '').slice(0, 72)}` +
            `\n\n${folded ? `${folded}\n` : ''}${noteLine}${FIX_TRAILER}: ` +
            `iter-${n}/${fix.id}`,
        );
      }
      let files: ChangedFile[] = commit ? await commitFiles(ctx, commit) : [];
      refused ??= commit
        ? await fixVerdict(
            guards,
            'beforeRun',
            guardBase,
            fix,
            files.map((f) => f.path),
          )
        : undefined;
      if (refused && !commit && start !== undefined && ((await headSha(ctx)) !== start || (await isDirty(ctx))))
        await resetHard(ctx, start);
      if (refused && commit) {
        // A user guard refused the applied FIX: its commit (the branch's last) is dropped before the rerun.
        await resetHard(ctx, start ?? `${commit}~1`);
        commit = null;
        files = [];
      }
      if (refused) note = verdictNote(refused);
      ledger = {
        ...ledger,
        applying: null,
        applied: [...ledger.applied, { id: fix.id, kind: fix.kind, commit, files, note }],
      };
      await writeLedger(ip.flow, ledger);
      await c.logOnce(
        rp,
        `iter-${n}/flow/${fix.id}`,
        `${fix.id} (${fix.kind}): ` +
          `${refused ? 'not applied' : commit ? `commit ${commit.slice(0, 12)}, ${files.length} files` : 'no change'}` +
          `${note ? ` — ${note}` : ''}`,
      );
      if (refused?.verdict.action === 'halt') {
        await c.escalateRun(
          state,
          rp,
          `iter ${n}/${spec.budget.max_iterations} · Stage 5.1 · HALTED by ${refused.guard.name}`,
          'guard_halted',
          `${fix.id}: ${note}`,
          'escalated',
        );
        c.tick(state.runId, `iter-${n} Stage 5.1 → ${fix.id} halted by guard ${refused.guard.name}, escalated`);
        return { kind: 'stage', runId: state.runId, iter: n, stage: 'stage5.1', status: 'escalated' };
      }
    }
  }
  const commits = ledger.applied.filter((a) => a.commit).length;
  await c.observe(rp, `iter ${n}/${spec.budget.max_iterations} · Stage 5.1 · flow · ${commits} FIX committed`);
  c.tick(state.runId, `iter-${n} Stage 5.1 → flow applied ${ledger.applied.length} FIX (${commits} commits)`);
  await c.persist(rp, { ...state, stage: 'audit' });
  return { kind: 'stage', runId: state.runId, iter: n, stage: 'stage5.1', status: 'running' };
}
