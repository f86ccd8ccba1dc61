import type { MaybePromise } from '@loop/core';
import type { ChangedFile } from './diff-audit.js';
import type { FixRecord } from './records.js';

/** What an {@link AuditGuard} checks at Stage 5.2. */
export interface AuditGuardInput {
  /** The iteration number. */
  readonly iter: number;
  /** Absolute worktree path (HEAD = the last FIX commit). */
  readonly worktree: string;
  /** The eligible FIX records of the plan. */
  readonly fixes: readonly FixRecord[];
  /** Per committed FIX: its id, kind, commit and changed files (flow.json). */
  readonly commits: readonly {
    readonly id: string;
    readonly kind: string;
    readonly commit: string | null;
    readonly files: readonly ChangedFile[];
  }[];
  /**
   * The real branch diff of the iteration: every file changed from its start sha to the worktree, whoever committed it
   * (collie, the flow agent, the recovery ladder).
   */
  readonly branchFiles: readonly ChangedFile[];
}

/**
 * An extra overfit guard run by Stage 5.2 after G6 and G1. Seed 000 lists G1-G8 in the run spec's
 * `overfit_guards` but defines G4 and G5 only in `overfit-guards.md`, which it does not include;
 * this is where a project plugs in its own G4 / G5 (or any other guard). A guard returns its
 * violations (one line each; empty = PASS); any violation escalates the run with reason
 * `<id lower-cased>_guard_failed` (e.g. `g4_guard_failed`) and notifies `escalated`.
 */
export interface AuditGuard {
  /** Short id, letters and digits (e.g. `G4`). */
  readonly id: string;
  /** One-line description, shown in audit.md. */
  readonly name: string;
  readonly check: (input: AuditGuardInput) => MaybePromise<readonly string[]>;
}
