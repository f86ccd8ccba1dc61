import { open, readFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { LoopError } from './errors.js';

/**
 * Writes `text` to `path` atomically: a temp file in the same directory is written, fsynced and
 * renamed over `path` (write-file-atomic), then the directory is fsynced (FACTS.md "Atomic
 * replace"). The file gets mode 0o644. For every control and log file a loop rewrites whole.
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path when any step fails; the previous
 *   file, if any, is left intact and no temp file remains.
 */
export async function writeTextAtomic(path: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, text, { fsync: true, mode: 0o644 });
    const dir = await open(dirname(path), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch (error) {
    throw new LoopError('STATE_WRITE_FAILED', `[loop] [state] could not write ${path}: ${(error as Error).message}; check the disk and permissions (the previous file is intact)`, { cause: error, details: { path } });
  }
}

/**
 * Writes `data` as JSON to `path` with {@link writeTextAtomic}, then re-reads and parses the file
 * to confirm it (seed 002: state.json written last, re-read).
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path when any step fails; the previous
 *   file, if any, is left intact.
 */
export async function writeJsonAtomic(path: string, data: unknown): Promise<void> {
  await writeTextAtomic(path, `${JSON.stringify(data, null, 2)}\n`);
  try {
    JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new LoopError('STATE_WRITE_FAILED', `[loop] [state] ${path} did not read back as JSON: ${(error as Error).message}`, { cause: error, details: { path } });
  }
}

/**
 * Reads a JSON file written by {@link writeJsonAtomic}.
 *
 * @returns the parsed value, or `undefined` when the file does not exist.
 * @throws {LoopError} `STATE_CORRUPT` naming the path when it is not valid JSON.
 */
export async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new LoopError('STATE_CORRUPT', `[loop] [state] ${path} is not valid JSON: ${(error as Error).message}`, { cause: error, details: { path } });
  }
}
