import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The environment variable that tags a command started with a pid file. */
export const RUN_TOKEN_ENV = 'LOOP_RUN_TOKEN';

/** A fresh token for {@link RUN_TOKEN_ENV}. */
export const newRunToken = (): string => randomBytes(8).toString('hex');

/**
 * Writes `{ pgid, token }` to the pid file (synchronously: it must exist before anything else runs).
 * Best effort: a pid file that cannot be written only loses the orphan clean-up, never the run.
 */
export function writePidFile(path: string, pgid: number, token: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify({ pgid, token })}\n`);
  } catch {
    // see above
  }
}

/** Removes the pid file (missing is fine). */
export function removePidFile(path: string): void {
  rmSync(path, { force: true });
}

