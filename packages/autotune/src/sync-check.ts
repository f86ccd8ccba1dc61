import type { MaybePromise } from '@loop/core';

/** The outcome of a {@link SyncCheck}. */
export type SyncResult = { ok: true } | { ok: false; reason: string };

/**
 * Verifies, after the code commit and before the evaluation, that the evaluation target runs the
 * latest code (seed 004 step 4 "Verify sync": push, pull on the remote, rebuild). A failed or
 * throwing check aborts the round as `stale`: the evaluation is skipped and nothing is counted.
 */
export interface SyncCheck {
  /** Used in errors, logs and the changelog. */
  readonly name: string;
  /** Checks (and may rebuild) the evaluation target for `round`. Must not evaluate. */
  readonly verify: (context: {
    readonly round: number;
    readonly dir: string;
    readonly codeCommitted: boolean;
  }) => MaybePromise<SyncResult>;
}

/** A sync check that always passes: for a local evaluation that reads the working tree directly. */
export function noSyncCheck(): SyncCheck {
  return { name: 'none', verify: () => ({ ok: true }) };
}
