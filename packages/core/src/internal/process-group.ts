import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { newRunToken, removePidFile, RUN_TOKEN_ENV, writePidFile } from './pid-file.js';

const live = new Set<number>();
let exitHookInstalled = false;

/** Sends `signal` to the whole process group `pgid`; ignores a group that is already gone. */
export function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A detached group survives its parent (FACTS.md): kill what is still running when we exit.
  process.once('exit', () => {
    for (const pgid of live) killGroup(pgid, 'SIGKILL');
  });
}

/** Options of {@link runInGroup}. */
export interface GroupRunOptions {
  /** The shell command, run with `/bin/sh -c`. */
  command: string;
  /** Absolute working directory. */
  cwd: string;
  /** The complete environment of the command. */
  env: NodeJS.ProcessEnv;
  /** File descriptor that receives stdout and stderr (never a pipe: a grandchild would hold it open). */
  outputFd: number;
  /** Optional text written to stdin, then stdin is closed. */
  input?: string;
  /** Hard timeout in ms; the whole group is killed when it passes. */
  killTimeoutMs: number;
  /** Time between SIGTERM and SIGKILL, in ms. */
  graceMs: number;
  signal?: AbortSignal;
  /** Called once the command has started, with its pid (= its process group id). */
  onSpawn?: (pgid: number) => void;
  /**
   * Absolute path of a pid file holding `{ pgid, token }` while the command runs (removed when it
   * ends); the command's environment gets `LOOP_RUN_TOKEN=<token>`. A controller killed with SIGKILL
   * cannot kill the detached group itself; its successor finds the file and kills the group with
   * `killOrphanGroup` (token-checked). @default none
   */
  pidFile?: string;
}

/** The outcome of {@link runInGroup}. */
export interface GroupRunResult {
  /** Exit code, or `null` when killed by a signal or never started. */
  exitCode: number | null;
  /** The signal that ended the leader, or `null`. */
  signal: string | null;
  /** True when `killTimeoutMs` passed and the group was killed. */
  timedOut: boolean;
  /** True when `signal` aborted the run and the group was killed. */
  aborted: boolean;
  /** Wall time in ms. */
  durationMs: number;
  /** Why the command could not be started, if it could not. */
  spawnError?: Error;
}

/**
 * Runs `command` through `/bin/sh -c` as the leader of a new process group, waits for it to
 * exit, and kills the whole group on timeout or abort (SIGTERM, then SIGKILL after `graceMs`).
 * After the leader exits, any process left in its group is killed too, so no grandchild outlives
 * the run. Measures wall time with `performance.now()`.
 */
export function runInGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  installExitHook();
  const pidFile = options.pidFile;
  const token = pidFile ? newRunToken() : '';
  const started = performance.now();
  return new Promise((resolve) => {
    let child: ChildProcess;
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    const finish = (result: Omit<GroupRunResult, 'durationMs' | 'timedOut' | 'aborted'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(killTimer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
      if (child?.pid !== undefined) {
        killGroup(child.pid, 'SIGKILL');
        live.delete(child.pid);
      }
      if (pidFile) removePidFile(pidFile);
      resolve({ ...result, timedOut, aborted, durationMs: performance.now() - started });
    };
    const terminate = () => {
      if (child.pid === undefined) return;
      killGroup(child.pid, 'SIGTERM');
      graceTimer = setTimeout(() => child.pid !== undefined && killGroup(child.pid, 'SIGKILL'), options.graceMs);
    };
    const onAbort = () => {
      aborted = true;
      terminate();
    };
    try {
      child = spawn('/bin/sh', ['-c', options.command], {
        cwd: options.cwd,
        env: pidFile ? { ...options.env, [RUN_TOKEN_ENV]: token } : options.env,
        detached: true,
        stdio: [options.input === undefined ? 'ignore' : 'pipe', options.outputFd, options.outputFd],
      });
    } catch (error) {
      finish({ exitCode: null, signal: null, spawnError: error as Error });
      return;
    }
    if (child.pid !== undefined) {
      live.add(child.pid);
      if (pidFile) writePidFile(pidFile, child.pid, token);
      options.onSpawn?.(child.pid);
    }
    child.once('error', (error) => finish({ exitCode: null, signal: null, spawnError: error }));
    child.once('exit', (code, sig) => finish({ exitCode: code, signal: sig }));
    if (options.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {});
      child.stdin.end(options.input);
    }
    killTimer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, options.killTimeoutMs);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * {@link runInGroup} with stdout and stderr going to `logPath` (its directory is created, the file
 * truncated, synced and closed when the command ends). The one way the harness, the agent proposers
 * and collie's commands run a logged command.
 *
 * @throws the file-system error when the log cannot be created (callers map it to their error code);
 *   a failing command is a result, never a throw.
 */
export async function runInGroupToLog(options: Omit<GroupRunOptions, 'outputFd'> & { logPath: string }): Promise<GroupRunResult> {
  const { logPath, ...run } = options;
  await mkdir(dirname(logPath), { recursive: true });
  const handle = await open(logPath, 'w');
  try {
    return await runInGroup({ ...run, outputFd: handle.fd });
  } finally {
    await handle.sync().catch(() => {});
    await handle.close();
  }
}
