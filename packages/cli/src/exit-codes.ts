import { isLoopError, type LoopSummary } from '@loop/core';
import { isUsageError } from './usage-error.js';

/**
 * The exit codes of `loop`, distinct per outcome:
 *
 * - `0` STOPPED: the run stopped by its policy (max iterations, plateau, target, wall clock, no file changes), or a
 *   command other than `run`/`resume` succeeded.
 * - `1` FAILED: any other failure (not a git repository, dirty tree, baseline crashed, ...).
 * - `2` CONFIG: the config file or the command line is invalid (`CONFIG_INVALID`, or a `UsageError`).
 * - `3` LOCK_HELD: another loop holds the workspace lock (`LOCK_HELD`).
 * - `4` RESTORE_FAILED: a revert or restore did not verify; inspect the workspace (`RESTORE_FAILED`).
 * - `130` INTERRUPTED: stopped by Ctrl-C (after restoring the last kept state).
 */
export const EXIT_CODES = {
  STOPPED: 0,
  FAILED: 1,
  CONFIG: 2,
  LOCK_HELD: 3,
  RESTORE_FAILED: 4,
  INTERRUPTED: 130,
} as const;

/** One of the values of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The exit code for an error thrown by a command. */
export function exitCodeForError(error: unknown): ExitCode {
  if (isLoopError(error, 'CONFIG_INVALID') || isUsageError(error)) return EXIT_CODES.CONFIG;
  if (isLoopError(error, 'LOCK_HELD')) return EXIT_CODES.LOCK_HELD;
  if (isLoopError(error, 'RESTORE_FAILED')) return EXIT_CODES.RESTORE_FAILED;
  return EXIT_CODES.FAILED;
}

/** The exit code for a run that returned a summary: its stop reason decides. */
export function exitCodeForSummary(summary: LoopSummary): ExitCode {
  switch (summary.stop.reason) {
    case 'aborted':
      return EXIT_CODES.INTERRUPTED;
    case 'restore-failed':
      return EXIT_CODES.RESTORE_FAILED;
    case 'error':
    case 'proposer-failing':
      return EXIT_CODES.FAILED;
    default:
      return EXIT_CODES.STOPPED;
  }
}
