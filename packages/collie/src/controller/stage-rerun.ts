import { writeTextAtomic } from '@loop/core/files';
import { changedFilesBetween } from '@loop/rollback-git/git';
import type { RunPaths } from '../paths.js';
import type { IterationEntry, RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import { readLedger } from '../stage-files.js';
import { convergenceEpsilon } from '../stop-checks.js';
import type { StageContext } from './stage-context.js';
import type { AutoiterStepOutcome } from './step-outcome.js';
import { noScalarWarning } from './stage-trigger.js';
import { evaluateIteration } from './iteration-loop.js';
import type { TriggerFacts } from './trigger-harness.js';

/** iter-N/summary.md (seed 000 Stage 5.3 fields, plus the rollback_log section Stage 6 appends). */
export function summaryText(n: number, e: IterationEntry, convergence: boolean, decision: string): string {
  return [
    `# Summary — iter-${n}`,
    `scalar_before: ${e.scalar_before ?? 'none'}`,
    `scalar_after: ${e.scalar_after ?? 'none'}`,
    `scalar_delta: ${e.scalar_delta ?? 'none'}`,
    `convergence: ${convergence ? 'yes' : 'no'}`,
    `decision: ${decision}`,
    `fixes_applied: [${e.fixes_applied.join(', ')}]`,
    `files_changed: ${e.files_changed ?? 'none'}`,
    ...(e.rollback
      ? [
          '',
          '## rollback_log',
          `row: ${e.rollback.row}`,
          ...e.rollback.reverted.map((r) => `- ${r.id} reverted (commit ${r.commit}) in ${e.rollback?.commit}`),
          ...(e.rollback.reverted.length === 0 ? ['- nothing reverted'] : []),
        ]
      : []),
    '',
  ].join('\n');
}

/**
 * Stage 5.3 (seed 000) through the core engine ({@link evaluateIteration}): the engine reruns the
 * trigger to iter-N/rerun.log, extracts the scalar with the run spec's `scalar_extraction`, asks
 * the keep policy (the rollback matrix, then the user's) and checks the stop policies, writing its
 * row and state; this stage then writes summary.md (decision `pending` until Stage 6) and
 * state.json `{ last_scalar, status: "iter_done" }` with the iteration's facts (delta, exit code,
 * error signature, FIXes applied, files changed: SC3 and SC5 read them).
 */
export async function stageRerun(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  const n = state.iter;
  const ip = rp.iter(n);
  const ledger = (await readLedger(ip.flow)) ?? { base: null, applied: [], applying: null };
  // SC5's "files changed": the real Stage 5.1 branch diff (whoever committed), measured before the rerun can write
  // anything.
  const filesChanged =
    ledger.base === null
      ? new Set(ledger.applied.flatMap((a) => a.files.map((f) => f.path))).size
      : (await changedFilesBetween(await c.gitCtx(rp), ledger.base)).length;
  const before = state.last_scalar ?? state.baseline_scalar;
  const fixes = ledger.applied.filter((a) => a.commit).map((a) => ({ id: a.id, kind: a.kind }));
  const tip = ledger.applied.filter((a) => a.commit).at(-1)?.commit ?? ledger.base;
  const { row } = await evaluateIteration(
    c,
    state,
    spec,
    rp,
    { iter: n, before, filesChanged, fixes },
    { base: ledger.base, tip },
  );
  const trigger = row.data?.trigger as TriggerFacts | undefined;
  const scalar = row.score;
  if (scalar === null)
    await c.logOnce(
      rp,
      `iter-${n}/rerun/no-scalar`,
      noScalarWarning(spec.trigger.scalar_extraction, 'rerun.log', c, state.runId, n),
    );
  const delta = scalar !== null && before !== null ? scalar - before : null;
  const entry: IterationEntry = {
    iter: n,
    scalar_before: before,
    scalar_after: scalar,
    scalar_delta: delta,
    exit_code: trigger?.exitCode ?? null,
    error_signature: trigger?.errorSignature ?? null,
    files_changed: filesChanged,
    fixes_applied: fixes.map((f) => f.id),
    rollback: null,
  };
  const next: RunState = {
    ...state,
    last_scalar: scalar,
    status: 'iter_done',
    ladder: null,
    iterations: [...state.iterations.filter((i) => i.iter !== n), entry],
  };
  const eps = convergenceEpsilon(c.stopFacts(next, spec));
  await writeTextAtomic(ip.summary, summaryText(n, entry, delta !== null && Math.abs(delta) <= eps, 'pending'));
  await c.observe(
    rp,
    `iter ${n}/${spec.budget.max_iterations} · Stage 5.3 · Rerun done · ` +
      `scalar=${scalar ?? 'none'} (was ${before ?? 'none'}, ` +
      `Δ=${delta ?? 'none'})`,
    `Iter ${n}: rerun exit ${entry.exit_code}, scalar ${scalar ?? 'none'} (was ${before ?? 'none'}).`,
    `iter-${n}/rerun`,
  );
  c.tick(state.runId, `iter-${n} Stage 5.3 → rerun done, scalar=${scalar ?? 'none'}`);
  await c.persist(rp, next);
  return { kind: 'stage', runId: state.runId, iter: n, stage: 'stage5.3', status: 'iter_done' };
}
