import { LoopError, type LoopErrorCode } from '@loop/core';

/** The prefix of every message this package produces. */
export const PREFIX = '[loop] [rollback-git]';

/** A {@link LoopError} whose message starts with {@link PREFIX}. */
export function rollbackError(
  code: LoopErrorCode,
  message: string,
  options: { cause?: unknown; details?: Record<string, unknown> } = {},
): LoopError {
  return new LoopError(code, `${PREFIX} ${message}`, options);
}

/** The isomorphic-git error code (`NotFoundError`, `CheckoutConflictError`, ...) or an errno. */
export function foreignCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** A one-line description of a foreign error for a message: `NotFoundError: Could not find HEAD.` */
export function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = foreignCode(error);
    return code !== undefined && code !== error.name
      ? `${error.name} ${code}: ${error.message}`
      : `${error.name}: ${error.message}`;
  }
  return String(error);
}

/**
 * Maps a foreign error (isomorphic-git's coded errors, an fs errno) to a {@link LoopError}: a
 * `LoopError` passes through unchanged, a checkout conflict becomes `DIRTY_WORKTREE`, an existing
 * branch `BRANCH_EXISTS`; anything else becomes `fallback`. The original is kept as `cause`.
 */
export function toLoopError(error: unknown, fallback: LoopErrorCode, doing: string, advice: string): LoopError {
  if (error instanceof LoopError) return error;
  const code = foreignCode(error);
  if (code === 'CheckoutConflictError') {
    const files = conflictFiles(error);
    return rollbackError(
      'DIRTY_WORKTREE',
      `${doing}: local changes would be overwritten in ${listFiles(files)}; ` +
        `commit or stash them, or pass allowDirty: true`,
      { cause: error, details: { files } },
    );
  }
  if (code === 'AlreadyExistsError') {
    return rollbackError('BRANCH_EXISTS', `${doing}: ${describe(error)}; ${advice}`, { cause: error });
  }
  return rollbackError(fallback, `${doing} failed (${describe(error)}); ${advice}`, {
    cause: error,
    details: code === undefined ? {} : { gitCode: code },
  });
}

function conflictFiles(error: unknown): string[] {
  const data = (error as { data?: { filepaths?: unknown } }).data;
  return Array.isArray(data?.filepaths) ? data.filepaths.map(String) : [];
}

/** `a, b, c and 7 more` for messages; the full list goes in `details`. */
export function listFiles(files: readonly string[], max = 10): string {
  if (files.length === 0) return '(no files)';
  const shown = files.slice(0, max).join(', ');
  return files.length > max ? `${shown} and ${files.length - max} more` : shown;
}

/** Runs `task`, mapping whatever it throws with {@link toLoopError}. */
export async function guarded<T>(
  fallback: LoopErrorCode,
  doing: string,
  advice: string,
  task: () => Promise<T>,
): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw toLoopError(error, fallback, doing, advice);
  }
}
