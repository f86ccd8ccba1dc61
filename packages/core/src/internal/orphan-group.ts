import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { removePidFile, RUN_TOKEN_ENV } from './pid-file.js';
import { killGroup } from './process-group.js';

export { newRunToken, removePidFile, RUN_TOKEN_ENV, writePidFile } from './pid-file.js';

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

/**
 * Kills every orphaned group recorded by a `*.pgid` file in `dir` (see {@link killOrphanGroup}),
 * in parallel. Only call it while holding the lock that keeps any other live owner out.
 *
 * @returns the killed group ids.
 */
export async function killOrphanGroups(dir: string, graceMs: number): Promise<number[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const killed = await Promise.all(names.filter((n) => n.endsWith('.pgid')).map((n) => killOrphanGroup(join(dir, n), graceMs)));
  return killed.filter((k): k is number => k !== null);
}
