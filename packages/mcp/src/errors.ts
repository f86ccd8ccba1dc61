/** An error with a stable code, shown to the agent as `error [CODE]: message`. */
export class McpToolError extends Error {
  override readonly name = 'McpToolError';
  /** `NO_EDIT`, `DIRTY_EDIT`, `OUTSIDE_TARGETS`, `BUSY` or `NO_CONFIG`. */
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

