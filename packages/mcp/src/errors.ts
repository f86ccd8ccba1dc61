/** An error with a stable code, shown to the agent as `error [CODE]: message`. */
export class McpToolError extends Error {
  override readonly name = 'McpToolError';
  /** `NO_EDIT`, `DIRTY_EDIT`, `OUTSIDE_TARGETS`, `BUSY`, `LOCK_HELD`, `NO_CONFIG` or `NO_LOG`. */
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/**
 * Why `loop_evaluate` has nothing to evaluate in `dir`: `LOCK_HELD` when another process's loop
 * holds it (its clean tree is that loop's: an edit made now would land in the running loop's
 * workspace), else `NO_EDIT`.
 */
export function noEditError(dir: string, targets: readonly string[], lockedElsewhere: boolean): McpToolError {
  return lockedElsewhere
    ? new McpToolError(
        'LOCK_HELD',
        `another loop holds ${dir} (loop status shows it); nothing was touched: ` +
          `wait for it to stop before editing the target files (${targets.join(', ')})`,
      )
    : new McpToolError(
        'NO_EDIT',
        `no uncommitted change in ${dir} to evaluate: edit the target files (${targets.join(', ')}) first`,
      );
}
