import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { removePidFile, RUN_TOKEN_ENV } from './pid-file.js';
import { cgroupPids, endCgroup, isRunCgroup } from './run-cgroup.js';
import { signalRun, type RunProcesses } from './run-reaper.js';
import { pidsWithToken, signalTokenHolders } from './token-scan.js';

export { newRunToken, removePidFile, RUN_TOKEN_ENV, RUN_TOKENS_ENV, writePidFile } from './pid-file.js';

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
 * What is left of the run: its group only while its leader still carries the token (a reused pgid is never touched).
 */
function leftovers(pgid: number, token: string, cgroup: string | undefined): RunProcesses | null {
  const group = groupAlive(pgid) && ownsToken(pgid, token);
  const inCgroup = cgroup !== undefined && cgroupPids(cgroup).length > 0;
  const holders = pidsWithToken(token).length > 0;
  if (!group && !inCgroup && !holders) return null;
  return { ...(group ? { pgid } : {}), token, ...(cgroup ? { cgroup } : {}) };
}

/**
 * Ends what a previous, interrupted run left behind (its controller was SIGKILLed, so nothing
 * ended the detached command): reads the pid file `{ pgid, token, cgroup? }` and finds the run's
 * processes the way `runInGroup` does: its process group (only while the leader's environment still
 * carries the token, on Linux), its cgroup (only a `loop-<token>` directory) and every process
 * whose environment carries the token, which includes a `setsid` daemon whose leader is long gone.
 * Sends SIGTERM, waits up to `graceMs` (polling every 25 ms), sends SIGKILL, removes the cgroup and
 * the pid file.
 *
 * @returns the recorded group id when anything of the run was still running, else null.
 */
export async function killOrphanGroup(path: string, graceMs: number): Promise<number | null> {
  let parsed: { pgid?: unknown; token?: unknown; cgroup?: unknown };
  try {
    parsed = JSON.parse(await readFile(path, 'utf8')) as typeof parsed;
  } catch {
    removePidFile(path);
    return null;
  }
  removePidFile(path);
  const { pgid, token } = parsed;
  if (typeof pgid !== 'number' || typeof token !== 'string' || token.length < 4) return null;
  const cgroup =
    typeof parsed.cgroup === 'string' && parsed.cgroup.endsWith(token) && isRunCgroup(parsed.cgroup)
      ? parsed.cgroup
      : undefined;
  let left = leftovers(pgid, token, cgroup);
  if (!left) {
    if (cgroup) await endCgroup(cgroup);
    return null;
  }
  signalRun(left, 'SIGTERM');
  signalTokenHolders(token, 'SIGTERM'); // signalRun skips the scan when there is a cgroup; an orphan is worth it
  const deadline = performance.now() + graceMs;
  while (left && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    left = leftovers(pgid, token, cgroup);
  }
  if (left) {
    signalRun(left, 'SIGKILL');
    signalTokenHolders(token, 'SIGKILL');
  }
  if (cgroup) await endCgroup(cgroup);
  return pgid;
}

/**
 * Ends every orphaned run recorded by a `*.pgid` file in `dir` (see {@link killOrphanGroup}),
 * in parallel. Only call it while holding the lock that keeps any other live owner out.
 *
 * @returns the group ids of the runs that were still running.
 */
export async function killOrphanGroups(dir: string, graceMs: number): Promise<number[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const killed = await Promise.all(
    names.filter((n) => n.endsWith('.pgid')).map((n) => killOrphanGroup(join(dir, n), graceMs)),
  );
  return killed.filter((k): k is number => k !== null);
}
