/**
 * A mistake on the command line that is not a config file's content (a file `loop init` would
 * overwrite, an iteration `loop diff` cannot find, ...). `runCli` prints it as `error: <message>`,
 * without a code or a field path, and exits 2 (`EXIT_CODES.CONFIG`).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** Always `USAGE`. */
  readonly code = 'USAGE' as const;
}

/** True for a {@link UsageError}. */
export function isUsageError(error: unknown): error is UsageError {
  return error instanceof UsageError;
}
