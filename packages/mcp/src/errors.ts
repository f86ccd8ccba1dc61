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
