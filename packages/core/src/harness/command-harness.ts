import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { LoopError, parseOptions } from '../contracts/errors.js';
import type { Harness, RunRecord } from '../contracts/harness.js';
import { runInGroupToLog } from '../process/process-group.js';
import { claimPidFileSlot } from '../process/pid-file-slots.js';
import { warmRunCgroups } from '../process/run-cgroup.js';
import { followLogLines, type LogFollower } from './log-follow.js';
import { compileIntermediatePattern, type IntermediatePattern } from './intermediate-pattern.js';
import { hashTreeStats } from '../artifacts/fingerprint-paths.js';
import { keepRunLog, type KeepLogsOptions } from './run-logs.js';
import { planSandbox, sandboxOptionsFields, type SandboxOptions } from '../process/sandbox.js';

/**
 * Options of {@link createCommandHarness}, validated by {@link commandHarnessOptionsSchema}.
 *
 * Sandbox (see `sandbox.ts`): `sandbox` defaults to `none` for the harness. It is the user's own
 * fixed evaluator, not the program under edit's author, and real harnesses need what a default
 * sandbox takes away: GPUs (`/dev/nvidia*` is not in bwrap's minimal `/dev`), dataset downloads,
 * caches in the home folder (`~/.cache/torch`). Set `sandbox: 'auto' | 'bwrap'` to confine it to
 * the workspace (`cwd`) plus `writable`, a private `/tmp`, and no network unless `network: true`.
 */
export interface CommandHarnessOptions extends SandboxOptions {
  /** The shell command (run with `/bin/sh -c`), for example `node train.mjs`. */
  command: string;
  /** Absolute working directory (the workspace). */
  cwd: string;
  /**
   * Log file for stdout and stderr, truncated each run (not fsynced: a diagnostic); relative to `cwd`.
   * @default 'run.log'
   */
  logFile?: string;
  /**
   * The time budget of one run in ms (seed 003 时间预算, e.g. 300 s). Passed to the command as
   * `LOOP_TIME_BUDGET_MS` and `LOOP_TIME_BUDGET_S`; the command is expected to stop in time.
   * @default 300000
   */
  timeBudgetMs?: number;
  /**
   * Hard kill timeout in ms (seed 003 超时上限, e.g. 600 s): past it the whole process tree is
   * killed and the run is a timeout crash. @default 2 × timeBudgetMs
   */
  killTimeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when killing, in ms. @default 5000 */
  graceMs?: number;
  /** Extra environment variables (merged over `process.env`). */
  env?: Record<string, string>;
  /** Files (relative to `cwd`) whose bytes define the evaluation; they go into the fingerprint. */
  fingerprintFiles?: string[];
  /**
   * Directories (or files, or symlinks) relative to `cwd` that the evaluation depends on but git
   * does not track, such as `node_modules`: hashed by metadata only (path, type, size, mtime,
   * mode, symlink target; no file is read), so a candidate that replaces or edits one is
   * `HARNESS_TAMPERED`. List only folders the run itself does not write (a build cache inside
   * `node_modules/.cache` would change the hash every run). @default []
   */
  fingerprintPaths?: string[];
  /**
   * Absolute path of a pid file for controllers that can be killed mid-run (SIGKILL leaves the
   * detached process group running). While the command runs the file holds `{ pgid, token }`
   * (the command gets `LOOP_RUN_TOKEN=<token>`); it is removed when the run ends. A run that starts
   * while the file names a live group still carrying its token kills that orphaned group first
   * (SIGTERM, then SIGKILL after `graceMs`). Runs of one process that overlap (working copies
   * sharing these options) each get their own file, `pidFile`, `pidFile.1`, `pidFile.2`, ..., and
   * a live run's file is never swept (issue 15). @default none
   */
  pidFile?: string;
  /**
   * Keep each run's log after the next run truncates it (issue 32 item 16): when set, every
   * finished run (crash and timeout included) copies `logFile` to `<dir>/<iteration>.log`
   * (`<iteration>.r<repeat>.log` for a re-run) and the oldest beyond `count` are removed (see
   * `keepRunLog`). Working copies pass the main workspace's folder, so a copy's log outlives the
   * copy. A copy that fails (disk full) does not fail the run. @default none (only `logFile`)
   */
  keepLogs?: KeepLogsOptions;
  /**
   * Intermediate reports from the log (issue 27): each new log line matching `pattern` is
   * reported live as `(step, value)` through `RunContext.report`, so the loop's pruners can stop a
   * doomed run; the run's reports also become the candidate's `data.reports`. @default none
   */
  intermediate?: IntermediatePattern;
  /**
   * Under a sandbox, leave `cwd` read-only too (only `writable` and the private `/tmp` are
   * writable): a sealed holdout runs the candidate's code this way, so the code cannot copy the
   * holdout's files into the workspace the proposer reads (issue 33). @default false
   */
  readOnlyCwd?: boolean;
}

/** zod schema of {@link CommandHarnessOptions}. */
export const commandHarnessOptionsSchema = z
  .object({
    command: z.string().trim().min(1, 'command must not be empty'),
    cwd: z.string().refine((p) => isAbsolute(p), 'cwd must be an absolute path'),
    logFile: z.string().min(1).default('run.log'),
    timeBudgetMs: z.number().int().positive().default(300_000),
    killTimeoutMs: z.number().int().positive().optional(),
    graceMs: z.number().int().nonnegative().default(5000),
    env: z.record(z.string(), z.string()).default({}),
    fingerprintFiles: z.array(z.string()).default([]),
    fingerprintPaths: z.array(z.string().min(1)).default([]),
    pidFile: z
      .string()
      .refine((p) => isAbsolute(p), 'pidFile must be an absolute path')
      .optional(),
    keepLogs: z
      .object({
        dir: z.string().refine((p) => isAbsolute(p), 'keepLogs.dir must be an absolute path'),
        count: z.number().int().nonnegative(),
      })
      .strict()
      .optional(),
    intermediate: z
      .object({ pattern: z.string().min(1), pollMs: z.number().int().positive().default(200) })
      .strict()
      .optional(),
    readOnlyCwd: z.boolean().default(false),
    ...sandboxOptionsFields,
  })
  .refine((o) => o.killTimeoutMs === undefined || o.killTimeoutMs >= o.timeBudgetMs, {
    message: 'killTimeoutMs must be at least timeBudgetMs',
    path: ['killTimeoutMs'],
  });

/**
 * A harness that runs a shell command in the workspace, stdout and stderr to a log file, under a
 * hard kill timeout that kills the whole process tree (no orphan grandchildren). A non-zero exit,
 * a kill or a timeout is reported in the {@link RunRecord}, never thrown.
 *
 * The environment gets `LOOP_ITERATION`, `LOOP_TIME_BUDGET_MS` and `LOOP_TIME_BUDGET_S`, plus
 * `LOOP_SEED` (the run's seed) and `LOOP_REPEAT` (0 for the first run of a state, 1.. for repeats)
 * when the engine provides them (it always does).
 *
 * Every process the command starts is gone when the run ends, a `setsid` daemon included (see
 * `runInGroup`: process group, cgroup, run token).
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options (names the field), or `sandbox: 'bwrap'` where bwrap does
 * not work.
 * @throws {LoopError} `HARNESS_FAILED` from `run()` when the log file cannot be opened.
 *
 * @example
 * const harness = createCommandHarness({ command: 'node train.mjs', cwd: '/work/run', timeBudgetMs: 300_000,
 * killTimeoutMs: 600_000 });
 */
export function createCommandHarness(options: CommandHarnessOptions): Harness {
  const o = parseOptions(commandHarnessOptionsSchema, options, 'command-harness');
  const logPath = resolve(o.cwd, o.logFile);
  const killTimeoutMs = o.killTimeoutMs ?? o.timeBudgetMs * 2;
  const sandbox = planSandbox(o, 'command-harness', { mode: 'none', network: false })(o.readOnlyCwd ? [] : [o.cwd]);
  const matcher = o.intermediate ? compileIntermediatePattern(o.intermediate.pattern, 'command-harness') : undefined;
  return {
    name: `command(${o.command})`,
    // The run's first shell enters its cgroup without the grace-period wait (issue 31).
    prepare: () => void warmRunCgroups(),
    run: async ({ iteration, signal, seed, repeat, report }): Promise<RunRecord> => {
      // sweeps orphans, never a live sibling's run
      const slot = o.pidFile ? await claimPidFileSlot(o.pidFile, o.graceMs) : undefined;
      let follower: LogFollower | undefined;
      const onLine = (line: string) => {
        const found = matcher?.(line);
        if (found) report?.(found.step, found.value);
      };
      let result;
      try {
        result = await runInGroupToLog({
          logPath,
          sync: false, // the row and state.json are the durable record; the log needs no fsync (issue 31)
          command: o.command,
          cwd: o.cwd,
          env: {
            ...process.env,
            ...o.env,
            LOOP_ITERATION: String(iteration),
            LOOP_TIME_BUDGET_MS: String(o.timeBudgetMs),
            LOOP_TIME_BUDGET_S: String(o.timeBudgetMs / 1000),
            ...(seed !== undefined ? { LOOP_SEED: String(seed) } : {}),
            ...(repeat !== undefined ? { LOOP_REPEAT: String(repeat) } : {}),
          },
          killTimeoutMs,
          graceMs: o.graceMs,
          signal,
          // The log was truncated for this run once the command started: follow it from there.
          ...(matcher && o.intermediate
            ? {
                onSpawn: () =>
                  void (follower = followLogLines(logPath, onLine, { intervalMs: o.intermediate!.pollMs ?? 200 })),
              }
            : {}),
          ...(slot ? { pidFile: slot.path } : {}),
          ...(sandbox ? { sandbox } : {}),
        });
      } catch (error) {
        throw new LoopError(
          'HARNESS_FAILED',
          `[loop] [command-harness] cannot open log file ${logPath}: ${(error as Error).message}`,
          { cause: error, details: { path: logPath } },
        );
      } finally {
        await follower?.stop();
        slot?.release();
      }
      // The log outlives the next run's truncation (and a working copy's removal); best effort.
      if (o.keepLogs) await keepRunLog(logPath, o.keepLogs, iteration, repeat ?? 0).catch(() => undefined);
      const error = result.spawnError
        ? `could not start: ${result.spawnError.message}`
        : result.aborted
          ? 'aborted'
          : undefined;
      return {
        exitCode: result.exitCode,
        signal: result.signal,
        timedOut: result.timedOut,
        durationMs: result.durationMs,
        logPath,
        ...(error ? { error } : {}),
      };
    },
    fingerprint: async () => {
      const hash = createHash('sha256').update(o.command).update('\0');
      for (const file of o.fingerprintFiles) {
        hash.update(file).update('\0');
        try {
          hash.update(await readFile(resolve(o.cwd, file)));
        } catch {
          hash.update('<missing>');
        }
        hash.update('\0');
      }
      for (const path of o.fingerprintPaths) await hashTreeStats(hash, o.cwd, path);
      return hash.digest('hex');
    },
  };
}
