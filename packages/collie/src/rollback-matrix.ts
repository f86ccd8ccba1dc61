import type { FixKind } from './records.js';

/** The run's primary goal (run-spec `primary_goal`). */
export type PrimaryGoal = 'correctness' | 'optimization' | 'both';

/** What Stage 6 decides for the applied FIXes. */
export interface RollbackDecision {
  /** FIX ids to revert one by one (`git revert --no-commit <sha>` each, then one commit). */
  readonly revert: readonly string[];
  /** FIX ids that stay. */
  readonly keep: readonly string[];
  /** The matrix row that applied, for the rollback_log. */
  readonly row: string;
}

/**
 * The seed 000 Stage 6 rollback matrix (the summary table; the authoritative stop-criterion.md is
 * not included in the seed). The scalar improves upward, so "degrades" is `scalarDelta < 0`; a
 * null delta (no scalar) counts as flat. A whole-iteration rollback never happens: only
 * `kind: optimization` FIXes are ever reverted, and `correctness` and `mixed` are always kept.
 *
 * - correctness, any delta: keep correctness; revert optimization only if the scalar degrades.
 * - optimization, degrades: revert all optimization, force-keep correctness.
 * - both, degrades: ≥ 80% correctness FIXes → keep all (crash-fix priority); otherwise (≥ 50%
 *   optimization, or 50-80% correctness) revert optimization, keep correctness.
 * - any goal, flat or improving: keep all.
 */
export function decideRollback(
  goal: PrimaryGoal,
  scalarDelta: number | null,
  fixes: readonly { id: string; kind: FixKind }[],
): RollbackDecision {
  const all = fixes.map((f) => f.id);
  const degrades = scalarDelta !== null && scalarDelta < 0;
  if (!degrades) return { revert: [], keep: all, row: `${goal} · flat/improves · keep all` };
  const opt = fixes.filter((f) => f.kind === 'optimization').map((f) => f.id);
  const rest = fixes.filter((f) => f.kind !== 'optimization').map((f) => f.id);
  const revertOpt = (row: string): RollbackDecision => ({ revert: opt, keep: rest, row });
  if (goal === 'correctness')
    return revertOpt('correctness · degrades · keep correctness, per-FIX revert optimization');
  if (goal === 'optimization')
    return revertOpt('optimization · degrades · per-FIX revert optimization, force-keep correctness');
  const correctnessShare = fixes.length === 0 ? 0 : fixes.filter((f) => f.kind === 'correctness').length / fixes.length;
  if (correctnessShare >= 0.8)
    return { revert: [], keep: all, row: 'both · degrades · >=80% correctness · keep all (crash-fix priority)' };
  return revertOpt(
    correctnessShare >= 0.5
      ? 'both · degrades · 50-80% correctness · per-FIX revert optimization'
      : 'both · degrades · >=50% optimization · per-FIX revert optimization',
  );
}
