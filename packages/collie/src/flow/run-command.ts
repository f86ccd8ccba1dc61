import { LoopError } from '@loop/core';
import { readLogTail } from '@loop/core/harness';
import { describeExit, runInGroupToLog, type SandboxSpec } from '@loop/core/process';

/** What {@link runFlowCommand} runs. */
export interface FlowCommandRequest {
  /** Shell command, run with `/bin/sh -c`. */
  readonly command: string;
  /** Absolute working directory (the worktree). */
  readonly cwd: string;
  /** The complete environment of the command. */
  readonly env: NodeJS.ProcessEnv;
  /** Absolute path of the log file that receives stdout and stderr (truncated first); keep it outside the worktree. */
  readonly logPath: string;
  /** Hard timeout in ms; the whole process group is killed past it. */
  readonly timeoutMs: number;
  /** Time between SIGTERM and SIGKILL, in ms. */
  readonly graceMs: number;
  /** Lines of log kept in {@link FlowCommandOutcome.tail}. @default 40 */
  readonly tailLines?: number;
  readonly signal?: AbortSignal;
  /** Where the running command's process group is recorded (core `runInGroup` `pidFile`). */
  readonly pidFile?: string;
  /**
   * Confine the command with bwrap (core `runInGroup` `sandbox`; resolve the mode once with core `planSandbox`).
   * @default unconfined
   */
  readonly sandbox?: SandboxSpec;
}

/** The outcome of one test command of the flow pipeline. */
export interface FlowCommandOutcome {
  readonly command: string;
  /** Exit code, or `null` when killed (timeout, abort, signal). */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** True only for exit code 0 without timeout or abort. */
  readonly passed: boolean;
  /** Short human form: `exit 1`, `timed out after 300 ms`, `killed by SIGTERM`. */
  readonly describe: string;
  /** The last lines of the log. */
  readonly tail: string;
  readonly logPath: string;
}

/**
 * Runs one test command (reproduction or regression) in its own process group with a hard
 * timeout (via `runInGroup` of `@loop/core`: SIGTERM to the whole group, SIGKILL after `graceMs`).
 * A non-zero exit, a timeout or a signal is a result, not an error.
 *
 * @throws {LoopError} `HARNESS_FAILED` when the log file cannot be opened or the command cannot be spawned.
 */
export async function runFlowCommand(request: FlowCommandRequest): Promise<FlowCommandOutcome> {
  let result;
  try {
    result = await runInGroupToLog({
      logPath: request.logPath,
      command: request.command,
      cwd: request.cwd,
      env: request.env,
      killTimeoutMs: request.timeoutMs,
      graceMs: request.graceMs,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.pidFile ? { pidFile: request.pidFile } : {}),
      ...(request.sandbox ? { sandbox: request.sandbox } : {}),
    });
  } catch (error) {
    throw new LoopError(
      'HARNESS_FAILED',
      `[loop] [collie] flow cannot open the command log ${request.logPath}: ${(error as Error).message}`,
      { cause: error, details: { logPath: request.logPath } },
    );
  }
  if (result.spawnError) {
    throw new LoopError(
      'HARNESS_FAILED',
      `[loop] [collie] flow cannot start "${request.command}" ` +
        `in ${request.cwd}: ${result.spawnError.message}; check the command and ` +
        `the worktree`,
      { cause: result.spawnError, details: { command: request.command, cwd: request.cwd } },
    );
  }
  const describe = result.timedOut
    ? `timed out after ${request.timeoutMs} ms`
    : result.aborted
      ? 'aborted'
      : result.exitCode !== null
        ? result.exitCode > 128
          ? describeExit(result.exitCode, null)
          : `exit ${result.exitCode}`
        : `killed by ${result.signal ?? 'a signal'}`;
  const passed = result.exitCode === 0 && !result.timedOut && !result.aborted;
  const tail = await readLogTail(request.logPath, request.tailLines ?? 40);
  return {
    command: request.command,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    aborted: result.aborted,
    passed,
    describe,
    tail,
    logPath: request.logPath,
  };
}
