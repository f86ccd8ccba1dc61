import { endCgroup, removeCgroup, signalCgroup } from './run-cgroup.js';
import { signalTokenHolders } from './token-scan.js';

/**
 * What identifies every process of one command run: its process group, its run token (in the
 * environment of everything it starts) and, where the system allows, its own cgroup v2.
 *
 * No npm process-tree library is used: `tree-kill`, `pidtree` and `ps-tree` walk parent pids,
 * and a `setsid` daemon re-parented to pid 1 is invisible to them (FACTS.md, Processes). The
 * cgroup catches everything (even a process that clears its environment); the token scan is the
 * fallback where cgroups are not writable (a user session under systemd, macOS has neither and
 * keeps only the process-group kill).
 */
export interface RunProcesses {
  /** The process group id (the leader's pid), when the leader started. */
  readonly pgid?: number;
  /** The run token. */
  readonly token: string;
  /** The run's cgroup directory, or null/undefined without one. */
  readonly cgroup?: string | null;
}

/** Sends `signal` to the whole process group `pgid`; ignores a group that is already gone. */
export function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Sends `signal` to the run's group and to its cgroup, or, without a cgroup, to every process
 * carrying its token (the scan reads every `/proc/<pid>/environ`: about 5 ms at 140 processes, so
 * it runs only where the cgroup, which no unprivileged process can leave, is missing).
 */
export function signalRun(run: RunProcesses, signal: NodeJS.Signals): void {
  if (run.pgid !== undefined) killGroup(run.pgid, signal);
  if (run.cgroup) signalCgroup(run.cgroup, signal);
  else signalTokenHolders(run.token, signal);
}

/** Ends every process of the run with SIGKILL and removes its cgroup once the kernel has emptied it. */
export async function endRun(run: RunProcesses): Promise<void> {
  signalRun(run, 'SIGKILL');
  if (run.cgroup) await endCgroup(run.cgroup);
}

/** {@link endRun} for a process `exit` hook (synchronous: the cgroup is removed only if already empty). */
export function endRunSync(run: RunProcesses): void {
  signalRun(run, 'SIGKILL');
  if (run.cgroup) removeCgroup(run.cgroup);
}
