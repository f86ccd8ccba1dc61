import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { bwrapArgv, type SandboxSpec } from './sandbox.js';
import { bwrapStatus } from './bwrap-status.js';
import { newRunToken, removePidFile, RUN_TOKEN_ENV, RUN_TOKENS_ENV } from './pid-file.js';
import { createRunCgroup } from './run-cgroup.js';
import { endRun, endRunSync, signalRun, type RunProcesses } from './run-reaper.js';

export { describeExit, signalOfExitCode } from '../harness/exit-status.js';
export { killGroup } from './run-reaper.js';

const live = new Map<string, RunProcesses>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A detached group survives its parent (FACTS.md): kill what is still running when we exit.
  process.once('exit', () => {
    for (const run of live.values()) endRunSync(run);
  });
}

/**
 * The shell prologue that runs before the command, in the command's own process: it enters the
 * run's cgroup (`$1`: its `cgroup.procs`, or empty) and writes the pid file (`$2`, or empty; `$3` is
 * the record after its pgid), so both hold before anything runs.
 */
const PROLOGUE_STEPS =
  '[ -z "$1" ] || { echo $$ > "$1"; } 2>/dev/null; ' +
  '[ -z "$2" ] || printf \'{"pgid":%s,%s\\n\' "$$" "$3" > "$2" 2>/dev/null;';
/** The prologue, then `exec` of the argv after `$3` (a sandboxed command: bwrap must replace the shell). */
const PROLOGUE = `${PROLOGUE_STEPS} shift 3; exec "$@"`;
/**
 * The prologue, then the command (`$4`) in the same shell (issue 31): `/bin/sh -c <command>` would
 * be a second exec of a shell, about 0.7 ms of a 2.5 ms instant run here. The command sees what it
 * would see under `/bin/sh -c`: no positional parameters, `$0` is `/bin/sh`, `$$` is the group
 * leader; it runs with `eval`, so a command that ends in an external program forks it instead of
 * replacing the shell (its death by a signal is then the shell's exit code 128 + n, which
 * `describeExit` reports as that signal).
 */
const FOLDED_PROLOGUE = `${PROLOGUE_STEPS} __loop_command=$4; shift 4; eval "$__loop_command"`;

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
   * Absolute path of a pid file holding `{ pgid, token, cgroup? }` while the command runs (removed
   * when it ends). A controller killed with SIGKILL cannot end its command itself; its successor
   * finds the file and ends the run with `killOrphanGroup` (token-checked). @default none
   */
  pidFile?: string;
  /**
   * Confine the command with bwrap (see `sandbox.ts`; the caller has checked bwrap works, e.g. with
   * `resolveSandboxMode`). @default none: the command runs unconfined
   */
  sandbox?: SandboxSpec;
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
 * exit, and ends everything it started: on timeout or abort SIGTERM, then SIGKILL after `graceMs`;
 * after the leader exits, SIGKILL to whatever is left. "Everything" is found three ways, so a
 * grandchild that calls `setsid` (its own session and group, re-parented to pid 1) is gone too:
 * - the process group;
 * - the run's cgroup v2 (`loop-<token>` under this process's cgroup) where this process may create
 *   one (root, a delegated subtree): the command enters it before it runs, and `cgroup.kill`
 *   ends every member, whatever it did to its session or environment;
 * - the run token: the command's environment gets `LOOP_RUN_TOKEN=<token>` and
 *   `LOOP_RUN_TOKENS=<enclosing tokens> <token>`, and every process whose `/proc/<pid>/environ`
 *   carries it is killed (Linux).
 * When this process exits (normally or through a signal handler that exits), live runs are ended
 * synchronously; after a SIGKILL, the pid file lets the next run end them.
 * Measures wall time with `performance.now()`.
 */
export function runInGroup(options: GroupRunOptions): Promise<GroupRunResult> {
  installExitHook();
  const pidFile = options.pidFile;
  const token = newRunToken();
  const inherited = options.env[RUN_TOKENS_ENV] ?? options.env[RUN_TOKEN_ENV];
  const env = { ...options.env, [RUN_TOKEN_ENV]: token, [RUN_TOKENS_ENV]: inherited ? `${inherited} ${token}` : token };
  const cgroup = createRunCgroup(token);
  const bwrap = options.sandbox ? (bwrapStatus().path ?? 'bwrap') : undefined;
  const commandArgv = [
    ...(bwrap && options.sandbox ? bwrapArgv(bwrap, options.cwd, options.sandbox) : []),
    '/bin/sh',
    '-c',
    options.command,
  ];
  if (pidFile) {
    try {
      mkdirSync(dirname(pidFile), { recursive: true });
    } catch {
      // best effort, like the pid file itself: the run goes on without the orphan clean-up
    }
  }
  const record = JSON.stringify({ token, ...(cgroup ? { cgroup } : {}) }).slice(1);
  const prologueArgs = [cgroup ? `${cgroup}/cgroup.procs` : '', pidFile ?? '', record];
  const argv =
    !cgroup && !pidFile
      ? commandArgv
      : bwrap
        ? ['/bin/sh', '-c', PROLOGUE, 'loop-run', ...prologueArgs, ...commandArgv]
        : ['/bin/sh', '-c', FOLDED_PROLOGUE, '/bin/sh', ...prologueArgs, options.command];
  const started = performance.now();
  return new Promise((resolve) => {
    let child: ChildProcess | undefined;
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    const run = (): RunProcesses => ({ ...(child?.pid !== undefined ? { pgid: child.pid } : {}), token, cgroup });
    const finish = (result: Omit<GroupRunResult, 'durationMs' | 'timedOut' | 'aborted'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(killTimer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const durationMs = performance.now() - started;
      void endRun(run()).finally(() => {
        live.delete(token);
        if (pidFile) removePidFile(pidFile);
        resolve({ ...result, timedOut, aborted, durationMs });
      });
    };
    const terminate = () => {
      signalRun(run(), 'SIGTERM');
      graceTimer = setTimeout(() => signalRun(run(), 'SIGKILL'), options.graceMs);
    };
    const onAbort = () => {
      aborted = true;
      terminate();
    };
    live.set(token, { token, cgroup });
    try {
      child = spawn(argv[0] as string, argv.slice(1), {
        cwd: options.cwd,
        env,
        detached: true,
        stdio: [options.input === undefined ? 'ignore' : 'pipe', options.outputFd, options.outputFd],
      });
    } catch (error) {
      finish({ exitCode: null, signal: null, spawnError: error as Error });
      return;
    }
    if (child.pid !== undefined) {
      live.set(token, run());
      // The pid file is the prologue's to write, before the command runs (it was also written here,
      // the same record a second time).
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
 * truncated, synced unless `sync: false`, and closed when the command ends). The one way the
 * harness, the agent proposers and collie's commands run a logged command.
 *
 * `sync: false` skips the log's fsync: a log is a diagnostic no durability rule names (the row and
 * state.json are the durable record), and under disk load each fsync costs milliseconds (issue 31).
 * The file is complete for every reader either way (the page cache serves it).
 *
 * @throws the file-system error when the log cannot be created (callers map it to their error code);
 *   a failing command is a result, never a throw.
 */
export async function runInGroupToLog(
  options: Omit<GroupRunOptions, 'outputFd'> & { logPath: string; sync?: boolean },
): Promise<GroupRunResult> {
  const { logPath, sync = true, ...run } = options;
  // Synchronous node:fs around the run (issue 31): mkdir, open, fsync and close are small calls,
  // each an event-loop round trip through the thread pool when asynchronous.
  mkdirSync(dirname(logPath), { recursive: true });
  const fd = openSync(logPath, 'w');
  try {
    return await runInGroup({ ...run, outputFd: fd });
  } finally {
    try {
      if (sync) fsyncSync(fd);
    } catch {
      // a log that cannot be synced is still the log
    }
    closeSync(fd);
  }
}
