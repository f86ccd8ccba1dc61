import type { MaybePromise } from '@loop/core';
import type { RunSpec } from './run-spec.js';

/** What Stage 0.5 (collie:autoiter-prepare) gets. */
export interface PrepareContext {
  readonly runId: string;
  readonly projectId: string;
  readonly runSpecPath: string;
  readonly reportPath: string;
  readonly worktreePath: string;
  readonly spec: RunSpec;
}

/** The outcome of a prepare check: PASS or FAIL with the report text. */
export interface PrepareResult {
  readonly ok: boolean;
  /** The report (markdown); written to prepare-report.md on PASS. */
  readonly report: string;
}

/**
 * The Stage 0.5 prepare check (seed 000 §3.5 Branch B step 5). Called only when the run spec's
 * `skip_prepare` is false and prepare-report.md does not exist yet.
 */
export interface Preparer {
  readonly name: string;
  readonly prepare: (context: PrepareContext) => MaybePromise<PrepareResult>;
}

/** A prepare check that passes without checking anything (its report says so). */
export function noPrepare(): Preparer {
  return {
    name: 'none',
    prepare: () => ({ ok: true, report: '# Prepare report\n\nNo prepare check configured: PASS without checks.\n' }),
  };
}
