import { join } from 'node:path';
import { createCommandHarness, type Guard, type Harness } from '@loop/core';
import { createCommandGuard } from '@loop/core/policies';
import type { ParsedAutoIterateOptions } from './auto-iterate-schema.js';
import { RUN_FILES } from './run-files.js';

/**
 * The run command as a core command harness in `cwd` (the workspace, or a parallel working copy):
 * its log, time budget and hard kill timeout, env, sandbox, the fingerprint of the read-only and
 * harness files, the pid file and the kept logs.
 */
export function runCommandHarness(o: ParsedAutoIterateOptions, cwd: string): Harness {
  return createCommandHarness({
    command: o.run.command,
    cwd,
    logFile: o.files.logFile,
    timeBudgetMs: Math.round(o.run.timeBudgetS * 1000),
    killTimeoutMs: Math.round(o.run.killTimeoutS * 1000),
    env: o.run.env,
    fingerprintFiles: [...o.files.readOnlyFiles, ...o.files.harnessFiles],
    fingerprintPaths: o.files.fingerprintPaths,
    // A SIGKILLed loop's orphaned run is killed before the next one starts; parallel copies
    // share the option and each overlapping run takes its own slot file (run.pgid, run.pgid.1, ...).
    pidFile: join(o.dir, RUN_FILES.runPid),
    // Each run's log, a working copy's included, is kept as .loop/logs/<iteration>.log (issue 32 item 16).
    keepLogs: { dir: join(o.dir, RUN_FILES.logs), count: o.files.keepLogs },
    ...(o.run.intermediate ? { intermediate: o.run.intermediate } : {}),
    ...o.run.sandbox,
  });
}

/**
 * The checks gate (`keep.checks`): the correctness command as a core command guard in `dir`, with
 * the run's env and sandbox.
 */
export function checksGuard(
  o: ParsedAutoIterateOptions,
  checks: NonNullable<ParsedAutoIterateOptions['keep']['checks']>,
): Guard {
  return createCommandGuard({
    command: checks.command,
    cwd: o.dir,
    timeoutMs: Math.round(checks.timeoutS * 1000),
    onFail: checks.onFail,
    logFile: '.loop/checks.log',
    env: o.run.env,
    ...o.run.sandbox,
  });
}
