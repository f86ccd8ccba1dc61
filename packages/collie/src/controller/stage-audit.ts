import { writeTextAtomic } from '../internal/fs.js';
import { g1TestFileGuard, g6DiffAudit } from '../diff-guards.js';
import type { RunPaths } from '../paths.js';
import type { RunState } from '../run-state.js';
import type { RunSpec } from '../run-spec.js';
import { readLedger } from '../stage-files.js';
import type { Ctx, StepOutcome } from './context.js';
import type { AuditGuard } from '../audit-guard.js';

/**
 * Stage 5.2 (seed 000): G6 (every file changed by the FIX commits traceable to a FIX's key files;
 * else escalate `g6_diff_audit_failed`) and G1 (no test file changed unless a correctness FIX adds
 * its reproduction test as a new key file; else escalate `g1_test_file_guard`), then the injected
 * extra guards (G4 / G5, see {@link AuditGuard}); audit.md records them all.
 */
export async function stageAudit(c: Ctx, state: RunState, spec: RunSpec, rp: RunPaths): Promise<StepOutcome> {
  const n = state.iter;
  const m = spec.budget.max_iterations;
  const ip = rp.iter(n);
  const id = state.runId;
  const ledger = (await readLedger(ip.flow)) ?? { base: null, applied: [] };
  const eligible = await c.eligibleFixes(ip);
  const changed = [...new Set(ledger.applied.flatMap((a) => a.files.map((f) => f.path)))].sort();
  const untraceable = g6DiffAudit(changed, eligible);
  const g1 = ledger.applied.flatMap((a) => g1TestFileGuard(a.files, eligible.filter((f) => f.id === a.id)).map((x) => `${a.id}: ${x.path} (${x.status})`));
  const worktree = await c.worktreeOf(rp);
  const extra: { id: string; name: string; violations: readonly string[] }[] = [];
  for (const guard of c.o.guards) extra.push({ id: guard.id, name: guard.name, violations: await guard.check({ iter: n, worktree, fixes: eligible, commits: ledger.applied }) });
  await writeTextAtomic(
    ip.audit,
    [
      `# Audit — iter-${n}`,
      '',
      `## G6 diff audit: ${untraceable.length === 0 ? 'PASS' : 'FAIL'}`,
      `- changed files: ${changed.join(', ') || '(none)'}`,
      ...untraceable.map((f) => `- untraceable: ${f} (not in any FIX's key files)`),
      '',
      `## G1 test-file guard: ${g1.length === 0 ? 'PASS' : 'FAIL'}`,
      ...g1.map((v) => `- ${v}`),
      ...extra.flatMap((g) => ['', `## ${g.id} ${g.name}: ${g.violations.length === 0 ? 'PASS' : 'FAIL'}`, ...g.violations.map((v) => `- ${v}`)]),
      '',
    ].join('\n'),
  );
  c.tick(id, `iter-${n} Stage 5.2 → G6 diff audit ${untraceable.length === 0 ? 'PASS' : 'FAIL'}, G1 ${g1.length === 0 ? 'PASS' : 'FAIL'}`);
  if (untraceable.length > 0) {
    await c.escalateRun(state, rp, `iter ${n}/${m} · Stage 5.2 · G6 diff audit FAIL · ${untraceable.length} untraceable files`, 'g6_diff_audit_failed', untraceable.join(', '), 'escalated');
    return { kind: 'stage', runId: id, iter: n, stage: 'stage5.2', status: 'escalated' };
  }
  if (g1.length > 0) {
    await c.escalateRun(state, rp, `iter ${n}/${m} · Stage 5.2 · G1 test-file guard FAIL · ${g1.length} test files`, 'g1_test_file_guard', g1.join('; '), 'escalated');
    return { kind: 'stage', runId: id, iter: n, stage: 'stage5.2', status: 'escalated' };
  }
  const failedGuard = extra.find((g) => g.violations.length > 0);
  if (failedGuard) {
    await c.escalateRun(state, rp, `iter ${n}/${m} · Stage 5.2 · ${failedGuard.id} FAIL · ${failedGuard.violations.length} violations`, `${failedGuard.id.toLowerCase()}_guard_failed`, failedGuard.violations.join('; '), 'escalated');
    return { kind: 'stage', runId: id, iter: n, stage: 'stage5.2', status: 'escalated' };
  }
  await c.persist(rp, { ...state, stage: 'rerun' });
  return { kind: 'stage', runId: id, iter: n, stage: 'stage5.2', status: 'running' };
}
