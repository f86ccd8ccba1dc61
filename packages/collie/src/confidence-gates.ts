/**
 * The confidence and completeness gates of seed 000 (guard G8 at Stage 4a and 4b, guard G2 at 4b):
 * where a triaged issue or a deep-verified FIX goes next.
 *
 * @module
 */
import type { FixRecord, TriageRecord } from './records.js';

/** The DEFERRED pool tags of seed 000 (G8 triage, G8 deep verify, G2). */
export type DeferredTag = 'triage_low_confidence' | 'deep_verify_low_confidence' | 'g2_incomplete';

/** Where G8 sends a triaged issue. */
export type TriageRoute =
  | { readonly route: 'deep-verify' }
  | { readonly route: 'deferred'; readonly tag: 'triage_low_confidence' }
  | { readonly route: 'drop' };

/**
 * G8 at triage level (seed 000 Stage 4a): Discarded is dropped silently (never DEFERRED);
 * Real / Unclear with confidence ≥ 3 go to Deep Verify; with confidence ≤ 2 to DEFERRED, tagged
 * `triage_low_confidence`.
 */
export function triageGate(record: Pick<TriageRecord, 'verdict' | 'confidence'>): TriageRoute {
  if (record.verdict === 'Discarded') return { route: 'drop' };
  return record.confidence >= 3 ? { route: 'deep-verify' } : { route: 'deferred', tag: 'triage_low_confidence' };
}

/** Where G8 / G2 send a deep-verified FIX. */
export type FixRoute =
  | { readonly route: 'eligible' }
  | { readonly route: 'deferred'; readonly tag: 'deep_verify_low_confidence' | 'g2_incomplete' };

/**
 * G8 at deep-verify level and G2 (seed 000 Stage 4b), rows checked in the seed's order:
 * fix_confidence ≤ 2 → `deep_verify_low_confidence`; empty root_cause or empty reproduction_test
 * (whitespace counts as empty) → `g2_incomplete`; otherwise eligible for Stage 5.0.
 */
export function deepVerifyGate(fix: Pick<FixRecord, 'fix_confidence' | 'root_cause' | 'reproduction_test'>): FixRoute {
  if (fix.fix_confidence <= 2) return { route: 'deferred', tag: 'deep_verify_low_confidence' };
  if (fix.root_cause.trim() === '' || fix.reproduction_test.trim() === '')
    return { route: 'deferred', tag: 'g2_incomplete' };
  return { route: 'eligible' };
}

/** One entry of progress.md's DEFERRED pool. */
export interface DeferredItem {
  /** ISSUE-nnn or FIX-nnn. */
  readonly id: string;
  /** Why it was deferred. */
  readonly tag: DeferredTag;
}

/** The result of routing a whole iteration's triage and FIX records through G8 and G2. */
export interface GateResult {
  /** Issues that go on to Deep Verify. */
  readonly toVerify: readonly string[];
  /** FIXes eligible for Stage 5.0. */
  readonly eligible: readonly FixRecord[];
  /** Items for the DEFERRED pool, with their tags. */
  readonly deferred: readonly DeferredItem[];
  /** Discarded issues (dropped silently; listed here only for counts). */
  readonly dropped: readonly string[];
}

/** Routes triage records (G8) and FIX records (G8 + G2) in one pass. */
export function routeRecords(triage: readonly TriageRecord[], fixes: readonly FixRecord[] = []): GateResult {
  const toVerify: string[] = [];
  const deferred: DeferredItem[] = [];
  const dropped: string[] = [];
  for (const t of triage) {
    const r = triageGate(t);
    if (r.route === 'deep-verify') toVerify.push(t.issue);
    else if (r.route === 'deferred') deferred.push({ id: t.issue, tag: r.tag });
    else dropped.push(t.issue);
  }
  const eligible: FixRecord[] = [];
  for (const f of fixes) {
    const r = deepVerifyGate(f);
    if (r.route === 'eligible') eligible.push(f);
    else deferred.push({ id: f.id, tag: r.tag });
  }
  return { toVerify, eligible, deferred, dropped };
}
