import { readFileSync } from 'node:fs';

/**
 * What this host knows of a process id:
 * - `running`: it exists and has not exited;
 * - `zombie`: it exited and waits for its parent to reap it (`/proc/<pid>/stat` state `Z` or `X`):
 *   `process.kill(pid, 0)` still succeeds on it, but it holds nothing and will never run again;
 * - `gone`: no such process (ESRCH);
 * - `unknown`: it exists but cannot be inspected (another user's process, EPERM).
 */
export type ProcessState = 'running' | 'zombie' | 'gone' | 'unknown';

/** A process's state letter and start time (clock ticks since boot) from `/proc/<pid>/stat`. */
interface ProcStat {
  readonly state: string;
  readonly startTicks: number;
}

/** Parses `/proc/<pid>/stat` (Linux); undefined where /proc does not exist or the pid is gone. */
function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces or parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', startTicks: Number(fields[19]) };
}

/**
 * The state of process `pid` on this host: `/proc/<pid>/stat` where Linux has it (so a zombie
 * counts as dead), otherwise `process.kill(pid, 0)`.
 */
export function processState(pid: number): ProcessState {
  const stat = readProcStat(pid);
  if (stat) return stat.state === 'Z' || stat.state === 'X' ? 'zombie' : 'running';
  try {
    process.kill(pid, 0);
    return 'running';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? 'unknown' : 'gone';
  }
}

/**
 * The process's start time in clock ticks since boot (field 22 of `/proc/<pid>/stat`), or
 * undefined where /proc is missing. With the pid it names one process for good: a pid the kernel
 * reused for a new process has a later start time.
 */
export function processStartTicks(pid: number): number | undefined {
  const ticks = readProcStat(pid)?.startTicks;
  return ticks !== undefined && Number.isFinite(ticks) ? ticks : undefined;
}
