import { isLoopError, type LoopSummary } from '@loop/core';
import { EXIT_CODES, type ExitCode } from './cli-constants.js';
import { isUsageError } from './usage-error.js';

export { EXIT_CODES, type ExitCode } from './cli-constants.js';

/** The exit code for an error thrown by a command. */
export function exitCodeForError(error: unknown): ExitCode {
  if (isLoopError(error, 'CONFIG_INVALID') || isUsageError(error)) return EXIT_CODES.CONFIG;
  if (isLoopError(error, 'HOLDOUT_NOT_SEALED')) return EXIT_CODES.CONFIG; // a setup to fix before a run (issue 33)
  if (isLoopError(error, 'LOCK_HELD')) return EXIT_CODES.LOCK_HELD;
  if (isLoopError(error, 'RESTORE_FAILED')) return EXIT_CODES.RESTORE_FAILED;
  return EXIT_CODES.FAILED;
}

/**
 * The exit code for a run that returned a summary: its stop reason decides. `aborted` (Ctrl-C or
 * SIGTERM) is 0: the run returned, so its stop sequence completed and the workspace is at the
 * best kept state (issue 32: 130 there made pnpm print `ELIFECYCLE Command failed` after a clean stop).
 */
export function exitCodeForSummary(summary: LoopSummary): ExitCode {
  switch (summary.stop.reason) {
    case 'restore-failed':
      return EXIT_CODES.RESTORE_FAILED;
    case 'error':
    case 'proposer-failing':
      return EXIT_CODES.FAILED;
    default:
      return EXIT_CODES.STOPPED;
  }
}
