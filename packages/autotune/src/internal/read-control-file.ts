import { LoopError } from '@loop/core';
import { readJson } from '@loop/core/files';
import type { z } from 'zod';

/**
 * Reads and validates a JSON control file. Nothing is written, whatever happens.
 *
 * @throws {LoopError} `STATE_CORRUPT` naming the file and the field: `(file)` when it is missing,
 *   `(json)` when it is not JSON, otherwise the dotted path of each invalid field.
 */
export async function readControlFile<S extends z.ZodType>(
  path: string,
  schema: S,
  hint: string,
): Promise<z.output<S>> {
  let raw: unknown;
  try {
    raw = await readJson(path);
  } catch (error) {
    throw new LoopError(
      'STATE_CORRUPT',
      `[loop] [autotune] ${path}: field (json): not valid JSON; fix or restore the file (nothing was written)`,
      { cause: error, details: { path, field: '(json)' } },
    );
  }
  if (raw === undefined) {
    throw new LoopError(
      'STATE_CORRUPT',
      `[loop] [autotune] ${path}: field (file): the file is missing; ${hint} (nothing was written)`,
      { details: { path, field: '(file)' } },
    );
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
  const list = issues.map((i) => `field ${i.path}: ${i.message}`).join('; ');
  throw new LoopError(
    'STATE_CORRUPT',
    `[loop] [autotune] ${path}: ${list}; fix or restore the file (nothing was written)`,
    { cause: result.error, details: { path, field: issues[0]?.path, issues } },
  );
}
