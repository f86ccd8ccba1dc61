import { open, readFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { LoopError } from './errors.js';

/**
 * Writes `data` as JSON to `path` atomically: a temp file in the same directory is written,
 * fsynced and renamed over `path` (write-file-atomic), then the directory is fsynced, then the
 * file is re-read and parsed to confirm it (seed 002: state.json written last, re-read).
 * The file gets mode 0o644.
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path when any step fails; the previous
 *   file, if any, is left intact.
 */
export async function writeJsonAtomic(path: string, data: unknown): Promise<void> {
  const text = `${JSON.stringify(data, null, 2)}\n`;
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, text, { fsync: true, mode: 0o644 });
    const dir = await open(dirname(path), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new LoopError('STATE_WRITE_FAILED', `[loop] [state] could not write ${path}: ${(error as Error).message}; check the disk and permissions`, { cause: error, details: { path } });
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
