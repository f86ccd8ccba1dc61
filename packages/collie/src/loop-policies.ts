import {
  type Guard,
  type GuardInput,
  type GuardVerdict,
  type KeepPolicy,
  type LoopState,
  type StopPolicy,
} from '@loop/core';
import { firstVerdict } from '@loop/core/policies';
import type { AuditGuard } from './audit-guard.js';
import type { FixRecord } from './records.js';

/**
 * The user's own core policies collie consults alongside seed 000's rules (issue 11: one engine,
 * the same `KeepPolicy`, `StopPolicy` and `Guard` objects auto-iterate and an autoresearch pass
 * take). Seed 000's rules always apply first; a user policy can only revert more, stop earlier or
 * refuse a FIX:
 *
 * - `keep.policy` (asked by the core engine at Stage 5.3, inside collie's keep policy, after the
 *   rollback matrix; Stage 6 carries out the revert): decides on the iteration, `candidate` =
 *   `scalar_after`, `incumbent` = the best kept scalar so far (the baseline's, or a later
 *   iteration's that no rollback undid; seed 000's `scalar_before` is the last rerun's even when
 *   that iteration was reverted), direction `maximize`; `keep: false` reverts every FIX the matrix
 *   kept. Not asked when a scalar is missing (seed 000's crash rules).
 * - `stop.policy` (checked by the engine after the iteration's row, after SC1-SC5): each policy reads collie's real
 *   `LoopState`; a decision stops
 *   the run with `stop.policyStatus` and `stop_reason` `<reason>: <message>`.
 * - core `Guard`s: `beforeEdit` per FIX before Stage 5.1 applies it (`description` = the FIX's
 *   line, `plan.files` = its key files); `beforeRun` after its commit (`changes` = the commit's
 *   files), before the Stage 5.3 rerun: `skip` / `reject` drop the FIX (its commit is reset), the
 *   flow.json entry and user-log say `<status or action> (<guard>: <note>)`; `halt` escalates the
 * run. `afterScore` (asked by the engine, for an iteration that applied FIXes) when the keep decision keeps: `reject`
 * reverts every FIX kept,
 *   `halt` reverts them and stops the run `escalated`.
 */
export interface LoopPolicies {
  /** The `keep.policy` option, or undefined (the rollback matrix alone decides). */
  readonly keepPolicy: KeepPolicy | undefined;
  /** The `stop` option as a list (empty: SC1-SC5 only). */
  readonly stop: readonly StopPolicy[];
  /** The core Guards of the `keep.guards` option (its audit guards run at Stage 5.2 instead). */
  readonly guards: readonly Guard[];
}

const HOOKS = ['beforeEdit', 'beforeRun', 'afterScore'] as const;

/** True for a core {@link Guard} (hooks, no `check`), false for a Stage 5.2 {@link AuditGuard}. */
export function isLoopGuard(g: AuditGuard | Guard): g is Guard {
  const x = g as unknown as Record<string, unknown>;
  return typeof x.check !== 'function' && HOOKS.some((h) => typeof x[h] === 'function');
}

/** The core Guards among `keep.guards` (the others are Stage 5.2 audit guards). */
export function loopGuardsOf(guards: readonly (AuditGuard | Guard)[]): Guard[] {
  return guards.filter(isLoopGuard);
}

/** The Stage 5.2 audit guards among `keep.guards`. */
export function auditGuardsOf(guards: readonly (AuditGuard | Guard)[]): AuditGuard[] {
  return guards.filter((g): g is AuditGuard => !isLoopGuard(g));
}

/** The one line a guard hook sees as a FIX's description: `FIX-nnn (<kind>): <first outline line>`. */
export function fixDescription(fix: FixRecord): string {
  return `${fix.id} (${fix.kind}): ${(fix.fix_outline.trim().split('\n')[0] ?? '').slice(0, 72)}`;
}

/** A verdict as the flow.json note and the user-log show it: `<status or action> (<guard>: <note>)`. */
export function verdictNote(hit: { guard: Guard; verdict: GuardVerdict }): string {
  const byAction = hit.verdict.action === 'skip' ? 'skipped' : hit.verdict.action === 'halt' ? 'halted' : 'rejected';
  return `${hit.verdict.status ?? byAction}` + ` ` + `(${hit.guard.name}: ${hit.verdict.note})`;
}

/** What every guard hook gets from collie's loop state: the iteration, the rows so far, the best scalar. */
export function guardInputOf(
  state: LoopState,
  iteration: number,
  signal: AbortSignal = new AbortController().signal,
): GuardInput {
  return { iteration, history: state.history, best: state.best, direction: 'maximize', signal };
}

/** The first verdict of the FIX-level hooks (`beforeEdit`, `beforeRun`), in guard order. */
export function fixVerdict(
  guards: readonly Guard[],
  hook: 'beforeEdit' | 'beforeRun',
  base: GuardInput,
  fix: FixRecord,
  files: readonly string[],
): Promise<{ guard: Guard; verdict: GuardVerdict } | undefined> {
  const description = fixDescription(fix);
  const plan = { description, files: hook === 'beforeEdit' ? fix.key_files : files };
  if (hook === 'beforeEdit') return firstVerdict(guards, 'beforeEdit', { ...base, plan });
  return firstVerdict(guards, 'beforeRun', {
    ...base,
    plan,
    description,
    changes: { changed: [...files].sort(), violations: [] },
  });
}
