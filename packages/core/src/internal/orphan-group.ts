import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { readFile } from 'node:fs/promises';
import { killGroup } from './process-group.js';

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

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True when the process `pgid` carries our token (Linux /proc); where /proc is absent the pgid alone is trusted. */
function ownsToken(pgid: number, token: string): boolean {
  try {
    return readFileSync(`/proc/${pgid}/environ`, 'latin1').split('\0').includes(`${RUN_TOKEN_ENV}=${token}`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !existsProc()) return true;
    return false; // the leader is gone (or not ours): never kill a group we cannot identify
  }
}

function existsProc(): boolean {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
}

/**
 * Kills the process group a previous, interrupted run left behind (its controller was SIGKILLed,
 * so nothing killed the detached group): reads the pid file, checks the group still runs our
 * command (its leader's environment carries the file's token, on Linux), sends SIGTERM, waits up to
 * `graceMs` and sends SIGKILL. Removes the pid file.
 *
 * @returns the killed group id, or null when there was nothing to kill.
 */
export async function killOrphanGroup(path: string, graceMs: number): Promise<number | null> {
  let parsed: { pgid?: unknown; token?: unknown };
  try {
    parsed = JSON.parse(await readFile(path, 'utf8')) as typeof parsed;
  } catch {
    removePidFile(path);
    return null;
  }
  removePidFile(path);
  const { pgid, token } = parsed;
  if (typeof pgid !== 'number' || typeof token !== 'string' || !groupAlive(pgid) || !ownsToken(pgid, token)) return null;
  killGroup(pgid, 'SIGTERM');
  const deadline = performance.now() + graceMs;
  while (groupAlive(pgid) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (groupAlive(pgid)) killGroup(pgid, 'SIGKILL');
  return pgid;
}
