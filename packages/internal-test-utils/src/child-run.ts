import { spawn, type SpawnOptions } from 'node:child_process';
import pLimit from 'p-limit';

/** How a child process ended and what it printed. */
export interface ChildResult {
  /** Its exit code, or null when a signal ended it. */
  readonly code: number | null;
  /** The signal that ended it (`SIGKILL` for a kill-point test), or null. */
  readonly signal: NodeJS.Signals | null;
  /** Everything it wrote to stdout. */
  readonly stdout: string;
  /** Everything it wrote to stderr. */
  readonly stderr: string;
}

/**
 * Runs `command args` to its end (stdin ignored, stdout and stderr collected), for the kill and
 * resume tests that start the code under test in a real child process.
 *
 * @throws the spawn error when the command cannot start (ENOENT).
 */
export function runChild(
  command: string,
  args: readonly string[],
  options: Omit<SpawnOptions, 'stdio'> = {},
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d));
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs `tasks` at most `size` at a time (p-limit); the results in the tasks' order. */
export function inPool<T>(size: number, tasks: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
  const limit = pLimit(size);
  return Promise.all(tasks.map((task) => limit(task)));
}
