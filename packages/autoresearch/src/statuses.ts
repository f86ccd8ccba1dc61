/**
 * The three passes of seed 002: `design` (AR-1, AR_DESIGN, pre-TDD), `function` (AR-2,
 * AR_FUNCTION, post-TDD) and `acceptance` (AR-3, AR_ACCEPTANCE, post-QA).
 */
export type AutoresearchMode = 'design' | 'function' | 'acceptance';

/**
 * A results.tsv row status, in the seed's words.
 *
 * - `baseline`: row 0, the unmodified source.
 * - `kept`: composite strictly greater than the best so far; the edit stays.
 * - `reverted`: equal or lower composite; restored from the pre-edit snapshot.
 * - `reverted-redtest`: function mode, a test went from green to red; restored regardless of quality.
 * - `crash`: the proposer or the harness failed; restored.
 * - `restore-failed`: a restore copy failed or did not verify; the pass halts (no mixed tree).
 * - `rubric-tampered`: the rubric fingerprint changed mid-pass; the pass halts.
 * - `harness-tampered`: a harness file that is not a rubric file (the reflection tool script, the
 *   test runner) changed mid-pass ("never edit the harness"); the edit is not scored; the pass halts.
 * - `needs-human`: the idea needs a new dependency, a framework migration or a secret ("stop and
 *   surface it — do not add it"); nothing is applied; the pass stops (not a failure).
 */
export type AutoresearchStatus =
  | 'baseline'
  | 'kept'
  | 'reverted'
  | 'reverted-redtest'
  | 'crash'
  | 'restore-failed'
  | 'rubric-tampered'
  | 'harness-tampered'
  | 'needs-human';

/** Every {@link AutoresearchStatus}. */
export const AUTORESEARCH_STATUSES: readonly AutoresearchStatus[] = [
  'baseline',
  'kept',
  'reverted',
  'reverted-redtest',
  'crash',
  'restore-failed',
  'rubric-tampered',
  'harness-tampered',
  'needs-human',
];

/**
 * True for the statuses that increment the consecutive-reverts counter (seed 002: "increments on
 * reverted, reverted-redtest, and crash alike ... only a kept iteration resets it to 0").
 */
export function countsAsRevert(status: string): boolean {
  return status === 'reverted' || status === 'reverted-redtest' || status === 'crash';
}

/**
 * The consecutive-reverts counter after `statuses` (oldest first): reverted, reverted-redtest and
 * crash add one; kept (and the baseline, the start) reset it to 0; other statuses leave it.
 */
export function consecutiveReverts(statuses: readonly string[]): number {
  let n = 0;
  for (const s of statuses) {
    if (s === 'kept' || s === 'baseline') n = 0;
    else if (countsAsRevert(s)) n += 1;
  }
  return n;
}
