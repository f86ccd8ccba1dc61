import { readdirSync, readFileSync } from 'node:fs';
import { RUN_TOKEN_ENV, RUN_TOKENS_ENV } from './pid-file.js';

/**
 * The pids of every process whose initial environment carries `token`, as its own
 * `LOOP_RUN_TOKEN` or inside its inherited `LOOP_RUN_TOKENS` chain, found by reading
 * `/proc/<pid>/environ` (Linux; elsewhere the list is empty). This sees what a parent-pid walk
 * cannot (`pidtree`, `tree-kill` and `ps-tree` follow ppid links, which a `setsid` daemon
 * re-parented to pid 1 no longer has): any process started from the run's command keeps the token
 * unless it clears its environment (then only the run's cgroup finds it). Skips this process,
 * zombies (an empty environ) and processes of other users (unreadable).
 */
export function pidsWithToken(token: string): number[] {
  if (!token) return [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const own = `${RUN_TOKEN_ENV}=${token}`;
  const chainPrefix = `${RUN_TOKENS_ENV}=`;
  const pids: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${name}/environ`, 'latin1');
    } catch {
      continue;
    }
    if (!environ.includes(token)) continue;
    for (const entry of environ.split('\0')) {
      if (
        entry === own ||
        (entry.startsWith(chainPrefix) && entry.slice(chainPrefix.length).split(' ').includes(token))
      ) {
        pids.push(pid);
        break;
      }
    }
  }
  return pids;
}

/**
 * Sends `signal` to every process carrying `token` ({@link pidsWithToken}); with SIGKILL it scans
 * again (up to 6 rounds) until two scans in a row find none, so a process forked between a scan and
 * its kill, or caught mid-exec by one scan, is killed too.
 *
 * @returns the pids signalled (each once).
 */
export function signalTokenHolders(token: string, signal: NodeJS.Signals): number[] {
  const signalled = new Set<number>();
  // With SIGKILL, an empty scan is confirmed by a second one: a process in the middle of execve
  // can show an empty environ for an instant, so one empty scan does not prove none is left.
  let emptyScans = 0;
  for (let round = 0; round < (signal === 'SIGKILL' ? 6 : 1); round++) {
    const pids = pidsWithToken(token);
    if (pids.length === 0) {
      if (signal !== 'SIGKILL' || ++emptyScans >= 2) break;
      continue;
    }
    emptyScans = 0;
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
        signalled.add(pid);
      } catch {
        // already gone
      }
    }
  }
  return [...signalled];
}
