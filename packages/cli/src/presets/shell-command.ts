import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeExit, runInGroupToLog } from '@loop/core/process';

/** How a preset's shell command ended: `ok` for exit 0 in time, its whole output, and how it ended in words. */
export interface ShellCommandResult {
  readonly ok: boolean;
  readonly output: string;
  readonly ended: string;
}

/**
 * Runs `command` with `/bin/sh -c` in `cwd` in its own process group (core's runInGroupToLog: the
 * whole tree killed at `timeoutMs` or on `signal`), `input` on stdin, output captured through a
 * temporary log: the one runner of the presets' command pieces (autoresearch proposer, autotune worker).
 *
 * @throws the spawn error when the shell cannot start.
 */
export async function runShellCommand(
  command: string,
  cwd: string,
  input: string,
  timeoutMs: number,
  env: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<ShellCommandResult> {
  const dir = await mkdtemp(join(tmpdir(), 'loop-preset-cmd-'));
  try {
    const logPath = join(dir, 'output.log');
    const r = await runInGroupToLog({
      logPath,
      command,
      cwd,
      env: { ...process.env, ...env },
      killTimeoutMs: timeoutMs,
      graceMs: 1000,
      input,
      ...(signal ? { signal } : {}),
    });
    if (r.spawnError) throw r.spawnError;
    const output = await readFile(logPath, 'utf8');
    return {
      ok: !r.timedOut && r.exitCode === 0,
      output,
      ended: r.timedOut ? `timed out after ${timeoutMs} ms` : describeExit(r.exitCode, r.signal),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The last non-empty line of `text`, trimmed ('' when there is none). */
export const lastLine = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1) ?? '';
