import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeExit, runInGroupToLog } from '@loop/core/process';

/** What {@link runCaptured} returns. */
export interface CapturedRun {
  /** The exit code, `null` when killed. */
  readonly code: number | null;
  /** stdout and stderr, interleaved as written. */
  readonly output: string;
  /** How it ended, in words (`exited with code 1`, `killed by SIGKILL`, `timed out after 30000 ms`). */
  readonly ended: string;
}

/** Quotes one argv word for `/bin/sh -c`. */
const shellWord = (w: string) => (/^[A-Za-z0-9_./=:@%+-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/**
 * Runs the argv `command` in `cwd` through core's `runInGroupToLog`: its own process group, the
 * whole tree killed at `timeoutMs` or on `signal` (setsid escapees too), output to a temporary log
 * that is read back and removed. The gates and the reflection scorer of a pass run their commands
 * this way, like every other command the loop starts.
 *
 * @throws the spawn error when the command cannot start (the pass records a `crash`).
 */
export async function runCaptured(options: {
  command: readonly string[];
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  input?: string;
  env?: Record<string, string>;
}): Promise<CapturedRun> {
  const dir = await mkdtemp(join(tmpdir(), 'loop-autoresearch-cmd-'));
  try {
    const logPath = join(dir, 'output.log');
    const result = await runInGroupToLog({
      logPath,
      command: options.command.map(shellWord).join(' '),
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      killTimeoutMs: options.timeoutMs,
      graceMs: 1000,
      signal: options.signal,
      ...(options.input !== undefined ? { input: options.input } : {}),
    });
    if (result.spawnError) throw result.spawnError;
    const output = await readFile(logPath, 'utf8');
    const ended = result.timedOut
      ? `timed out after ${options.timeoutMs} ms`
      : describeExit(result.exitCode, result.signal);
    return { code: result.timedOut ? null : result.exitCode, output, ended };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
