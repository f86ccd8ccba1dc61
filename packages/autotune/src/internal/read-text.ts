import { readFile } from 'node:fs/promises';
import { LoopError } from '@loop/core';

/**
 * Reads a UTF-8 text file, or returns `initial` when it does not exist.
 *
 * @throws {LoopError} `STATE_CORRUPT` naming the path (field `(file)`) when it exists but cannot be read.
 */
export async function readText(path: string, initial = ''): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return initial;
    throw new LoopError(
      'STATE_CORRUPT',
      `[loop] [autotune] ${path}: field (file): cannot be read: ${(error as Error).message}; fix or restore the file`,
      { cause: error, details: { path, field: '(file)' } },
    );
  }
}
