import { open, readFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { LoopError } from '../contracts/errors.js';

let tempCounter = 0;

/**
 * Writes `text` to `path` atomically: a temp file in the same directory (`<path>.<pid>.<n>.tmp`)
 * is written, fsynced and renamed over `path`, then the directory is fsynced (FACTS.md "Atomic
 * replace"). The file gets mode 0o644. For every control and log file a loop rewrites whole.
 *
 * The steps run on synchronous `node:fs` (issue 31): the same two fsyncs and one rename as
 * write-file-atomic, without its nine thread-pool round trips (1.9 ms against 0.6 ms per write
 * here). A call therefore finishes before the next one starts, so writes to one path land in call
 * order.
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path when any step fails; the previous
 *   file, if any, is left intact and no temp file remains.
 */
export async function writeTextAtomic(path: string, text: string): Promise<void> {
  writeTextAtomicSync(path, text);
}

function writeTextAtomicSync(path: string, text: string): void {
  const temp = `${path}.${process.pid}.${(tempCounter += 1)}.tmp`;
  let created = false;
  try {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(temp, 'wx', 0o644);
    created = true;
    try {
      fchmodSync(fd, 0o644); // the umask may have narrowed it
      writeFileSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
    created = false;
    syncDirectorySync(dirname(path));
  } catch (error) {
    if (created) rmSync(temp, { force: true });
    throw new LoopError(
      'STATE_WRITE_FAILED',
      `[loop] [state] could not write ${path}: ${(error as Error).message}; ` +
        `check the disk and permissions (the previous file is intact)`,
      { cause: error, details: { path } },
    );
  }
}

function syncDirectorySync(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
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
  writeTextAtomicSync(path, `${JSON.stringify(data, null, 2)}\n`);
  try {
    JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new LoopError(
      'STATE_WRITE_FAILED',
      `[loop] [state] ${path} did not read back as JSON: ${(error as Error).message}`,
      { cause: error, details: { path } },
    );
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
    throw new LoopError('STATE_CORRUPT', `[loop] [state] ${path} is not valid JSON: ${(error as Error).message}`, {
      cause: error,
      details: { path },
    });
  }
}

/**
 * fsyncs the directory `dir`, so a file just created or renamed in it survives a power loss (FACTS.md "Atomic
 * replace").
 */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Appends `text` to `path` durably: the parent directory is made if needed, the text written and
 * fsynced before this returns, and the directory fsynced when the append created the file. The one
 * way results logs and journals append a line.
 *
 * @throws the file-system error (callers map it to their code, e.g. `STATE_WRITE_FAILED`).
 */
export async function appendDurable(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, 'a');
  let created: boolean;
  try {
    created = (await handle.stat()).size === 0;
    await handle.write(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  if (created) await syncDirectory(dirname(path));
}
