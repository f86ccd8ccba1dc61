import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LoopError } from '@loop/core';

let counter = 0;

/**
 * Writes a text file atomically: a temp file in the same directory is written and fsynced, renamed
 * over `path`, then the directory is fsynced (FACTS.md "Atomic replace"). The file gets mode 0o644.
 * Core's `writeJsonAtomic` does the same for JSON; core has no text variant yet, so this mirrors it
 * for changelog.md, issues.md and cannot_handle_group.txt.
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path; the previous file, if any, is intact
 *   and the temp file is removed.
 */
export async function writeTextAtomic(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  counter += 1;
  const temp = join(dir, `.${basename(path)}.${process.pid}.${counter}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(temp, 'w', 0o644);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.chmod(0o644);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    const dirHandle = await open(dir, 'r');
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw new LoopError('STATE_WRITE_FAILED', `[loop] [autotune] could not write ${path}: ${(error as Error).message}; check the disk and permissions (the previous file is intact)`, { cause: error, details: { path } });
  }
}
