import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { parseOptions } from '../contracts/errors.js';
import type { Guard, GuardInput, GuardVerdict } from '../contracts/guard.js';
import { describeExit, runInGroupToLog } from '../process/process-group.js';
import { readLogTail } from '../harness/log-tail.js';
import { planSandbox, sandboxOptionsFields, type SandboxOptions } from '../process/sandbox.js';

/**
 * Options of {@link createCommandGuard}, validated by {@link commandGuardOptionsSchema}. `sandbox`
 * defaults to `none` (like the harness, the checks are the user's own trusted command); set it to
 * confine the checks to the working directory plus `writable`, without network unless `network`.
 */
export interface CommandGuardOptions extends SandboxOptions {
  /** The correctness command (run with `/bin/sh -c`), e.g. `npm test`; exit 0 passes. */
  command: string;
  /** Absolute working directory (the workspace); a parallel candidate's checks run in its copy's `dir`. */
  cwd: string;
  /**
   * When it runs: `afterScore` (only for a candidate that would be kept: the checks gate) or `beforeRun` (every
   * candidate, before its harness run). @default 'afterScore'
   */
  when?: 'afterScore' | 'beforeRun';
  /**
   * What a failing command does: `reject` (the keep is blocked, the change rolled back) or `halt` the loop. @default
   * 'reject'
   */
  onFail?: 'reject' | 'halt';
  /** The row label of a failure (pi-autoresearch: `checks_failed`). @default 'checks_failed' */
  status?: string;
  /** Hard kill timeout of the command in ms; past it the whole process tree is killed and it fails. @default 300000 */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL, in ms. @default 5000 */
  graceMs?: number;
  /** Log file for stdout and stderr, relative to the working directory, truncated each run. @default 'checks.log' */
  logFile?: string;
  /** Extra environment variables. @default {} */
  env?: Record<string, string>;
  /** The guard's name in row notes. @default 'checks' */
  name?: string;
}

/** zod schema of {@link CommandGuardOptions}. */
export const commandGuardOptionsSchema = z
  .object({
    command: z.string().trim().min(1, 'command must not be empty'),
    cwd: z.string().refine((p) => isAbsolute(p), 'cwd must be an absolute path'),
    when: z.enum(['afterScore', 'beforeRun']).default('afterScore'),
    onFail: z.enum(['reject', 'halt']).default('reject'),
    status: z.string().min(1).default('checks_failed'),
    timeoutMs: z.number().int().positive().default(300_000),
    graceMs: z.number().int().nonnegative().default(5000),
    logFile: z.string().min(1).default('checks.log'),
    env: z.record(z.string(), z.string()).default({}),
    name: z.string().min(1).default('checks'),
    ...sandboxOptionsFields,
  })
  .strict();

/**
 * A guard that runs a correctness command (tests, a linter, a type check) and blocks the keep, or
 * halts the loop, when it fails: pi-autoresearch's `checks.sh` and the Guard of other auto-iterate
 * tools. The command runs in its own process group under a hard timeout (the whole tree is killed),
 * stdout and stderr to `logFile`; the environment gets `LOOP_ITERATION`. The verdict's note names
 * the command, its exit code (or timeout) and the log's last line.
 *
 * @throws {ConfigError} `CONFIG_INVALID` naming the field.
 *
 * @example
 * createLoop({ ..., keep: { guards: [createCommandGuard({ command: 'npm test', cwd: workspace })] } });
 */
export function createCommandGuard(options: CommandGuardOptions): Guard {
  const o = parseOptions(commandGuardOptionsSchema, options, 'command-guard');
  const sandbox = planSandbox(o, 'command-guard', { mode: 'none', network: false });
  const check = async (input: GuardInput): Promise<GuardVerdict | undefined> => {
    const cwd = input.workingCopy?.dir ?? o.cwd;
    const logPath = resolve(cwd, o.logFile);
    const spec = sandbox([cwd]);
    const result = await runInGroupToLog({
      logPath,
      command: o.command,
      cwd,
      env: { ...process.env, ...o.env, LOOP_ITERATION: String(input.iteration) },
      killTimeoutMs: o.timeoutMs,
      graceMs: o.graceMs,
      signal: input.signal,
      ...(spec ? { sandbox: spec } : {}),
    });
    if (result.exitCode === 0 && !result.timedOut) return undefined;
    const why = result.spawnError
      ? `could not start: ${result.spawnError.message}`
      : result.timedOut
        ? `timed out after ${o.timeoutMs} ms`
        : result.exitCode !== null && result.exitCode <= 128
          ? `exited ${result.exitCode}`
          : describeExit(result.exitCode, result.signal);
    const last = (await readLogTail(logPath, 1).catch(() => '')).trim();
    return { action: o.onFail, status: o.status, note: `\`${o.command}\` ${why}${last ? `: ${last}` : ''}` };
  };
  return o.when === 'afterScore' ? { name: o.name, afterScore: check } : { name: o.name, beforeRun: check };
}
