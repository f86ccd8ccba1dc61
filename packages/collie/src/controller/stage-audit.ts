import { writeTextAtomic } from '@loop/core/files';
import { auditGuardsOf } from '../loop-policies.js';
import { changedFilesSince } from '@loop/rollback-git/git';
import { forbiddenTestFileChanges, untraceableFiles, type ChangedFile } from '../diff-audit.js';
import type { RunPaths } from '../paths.js';
import type { RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import { readLedger, type FlowLedger } from '../stage-files.js';
import type { FixRecord } from '../records.js';
import type { StageContext } from './stage-context.js';
import type { AutoiterStepOutcome } from './step-outcome.js';
import type { AuditGuard } from '../audit-guard.js';

/**
 * The real branch diffs Stage 5.2 audits, whoever made the commits (collie, the flow agent, the
 * recovery ladder): `fixes` from Stage 5.1's base to the worktree (committed and not), `iteration`
 * from the iteration's start sha (`state.iter_start`, Stage 1) to the worktree. Outside git (no
 * start, no FIX) they fall back to flow.json's files.
 */
async function branchDiffs(
  c: StageContext,
  state: RunState,
  rp: RunPaths,
  ledger: FlowLedger,
): Promise<{ fixes: ChangedFile[]; iteration: ChangedFile[] }> {
  const recorded = ledger.applied.flatMap((a) => a.files);
  if (ledger.base === null && state.iter_start === null) return { fixes: recorded, iteration: recorded };
  const ctx = await c.gitCtx(rp);
  const fixes = ledger.base === null ? [] : await changedFilesSince(ctx, ledger.base);
  return { fixes, iteration: state.iter_start === null ? fixes : await changedFilesSince(ctx, state.iter_start) };
}

/**
 * G1 over the whole iteration (seed 000 Key Invariant 5: no test file changed unless a
 * `kind: correctness` FIX adds its reproduction test as a NEW key file). A file one FIX commit
 * changed is judged by that FIX (`FIX-nnn: path (status)`); any other (changed before the fixes:
 * the Stage 3.2 recovery ladder, a trigger run) by no FIX (`iter-N: path (status)`).
 */
function g1Violations(
  n: number,
  ledger: FlowLedger,
  eligible: readonly FixRecord[],
  iteration: readonly ChangedFile[],
): string[] {
  const owner = new Map<string, FlowLedger['applied'][number]>();
  for (const a of ledger.applied) for (const f of a.files) owner.set(f.path, a);
  const out: string[] = [];
  for (const a of ledger.applied)
    out.push(
      ...forbiddenTestFileChanges(
        a.files,
        eligible.filter((f) => f.id === a.id),
      ).map((x) => `${a.id}: ${x.path} (${x.status})`),
    );
  out.push(
    ...forbiddenTestFileChanges(
      iteration.filter((f) => !owner.has(f.path)),
      [],
    ).map((x) => `iter-${n}: ${x.path} (${x.status})`),
  );
  return out;
}

/**
 * Stage 5.2 (seed 000): G6 (every file of the real Stage 5.1 branch diff, whoever committed it,
 * traceable to a FIX's key files; else escalate `g6_diff_audit_failed`) and G1 over the whole
 * iteration's diff from its start sha (no test file changed unless a correctness FIX adds its
 * reproduction test as a new key file; else escalate `g1_test_file_guard`), then the injected
 * extra guards (G4 / G5, see {@link AuditGuard}); audit.md records them all.
 */
export async function stageAudit(
  c: StageContext,
  state: RunState,
  spec: RunSpec,
  rp: RunPaths,
): Promise<AutoiterStepOutcome> {
  const n = state.iter;
  const m = spec.budget.max_iterations;
  const ip = rp.iter(n);
  const id = state.runId;
  const ledger = (await readLedger(ip.flow)) ?? { base: null, applied: [], applying: null };
  const eligible = await c.eligibleFixes(ip);
  const diffs = await branchDiffs(c, state, rp, ledger);
  const changed = [...new Set(diffs.fixes.map((f) => f.path))].sort();
  const before = [...new Set(diffs.iteration.map((f) => f.path))].filter((p) => !changed.includes(p)).sort();
  const untraceable = untraceableFiles(changed, eligible);
  const g1 = g1Violations(n, ledger, eligible, diffs.iteration);
  const worktree = await c.worktreeOf(rp);
  const extra: { id: string; name: string; violations: readonly string[] }[] = [];
  for (const guard of auditGuardsOf(c.options.keep.guards))
    extra.push({
      id: guard.id,
      name: guard.name,
      violations: await guard.check({
        iter: n,
        worktree,
        fixes: eligible,
        commits: ledger.applied,
        branchFiles: diffs.iteration,
      }),
    });
  await writeTextAtomic(
    ip.audit,
    [
      `# Audit — iter-${n}`,
      '',
      `## G6 diff audit: ${untraceable.length === 0 ? 'PASS' : 'FAIL'}`,
      `- changed files: ${changed.join(', ') || '(none)'}`,
      ...(before.length > 0
        ? [`- changed before the fixes (Stage 3.2 recovery, trigger runs; G1 audits them): ${before.join(', ')}`]
        : []),
      ...untraceable.map((f) => `- untraceable: ${f} (not in any FIX's key files)`),
      '',
      `## G1 test-file guard: ${g1.length === 0 ? 'PASS' : 'FAIL'}`,
      ...g1.map((v) => `- ${v}`),
      ...extra.flatMap((g) => [
        '',
        `## ${g.id} ${g.name}: ${g.violations.length === 0 ? 'PASS' : 'FAIL'}`,
        ...g.violations.map((v) => `- ${v}`),
      ]),
      '',
    ].join('\n'),
  );
  c.tick(
    id,
    `iter-${n} Stage 5.2 → G6 diff ` +
      `audit ${untraceable.length === 0 ? 'PASS' : 'FAIL'}, ` +
      `G1 ${g1.length === 0 ? 'PASS' : 'FAIL'}`,
  );
  if (untraceable.length > 0) {
    await c.escalateRun(
      state,
      rp,
      `iter ${n}/${m} · Stage 5.2 · G6 diff audit FAIL · ${untraceable.length} untraceable files`,
      'g6_diff_audit_failed',
      untraceable.join(', '),
      'escalated',
    );
    return { kind: 'stage', runId: id, iter: n, stage: 'stage5.2', status: 'escalated' };
  }
  if (g1.length > 0) {
    await c.escalateRun(
      state,
      rp,
      `iter ${n}/${m} · Stage 5.2 · G1 test-file guard FAIL · ${g1.length} test files`,
      'g1_test_file_guard',
      g1.join('; '),
      'escalated',
    );
    return { kind: 'stage', runId: id, iter: n, stage: 'stage5.2', status: 'escalated' };
  }
  const failedGuard = extra.find((g) => g.violations.length > 0);
  if (failedGuard) {
    await c.escalateRun(
      state,
      rp,
      `iter ${n}/${m} · Stage 5.2 · ${failedGuard.id} FAIL · ${failedGuard.violations.length} violations`,
      `${failedGuard.id.toLowerCase()}_guard_failed`,
      failedGuard.violations.join('; '),
      'escalated',
    );
    return { kind: 'stage', runId: id, iter: n, stage: 'stage5.2', status: 'escalated' };
  }
  await c.persist(rp, { ...state, stage: 'rerun' });
  return { kind: 'stage', runId: id, iter: n, stage: 'stage5.2', status: 'running' };
}
