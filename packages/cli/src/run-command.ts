import { join } from 'node:path';
import type { CliIo, RunCommandLine } from './cli-io.js';
import { applyRunFlags } from './apply-run-flags.js';
import { EXIT_CODES, exitCodeForSummary } from './exit-codes.js';
import { createInterruptHandler } from './interrupt.js';
import { describeLeftovers } from './leftover-runs.js';
import { findConfigFile, loadConfig, LOOP_CONFIG_KIND } from './load-config.js';
import { detectPreset } from './presets/detect.js';
import { flagOverrides } from './run-flags.js';
import { UsageError } from './usage-error.js';

/** SIGTERM-to-SIGKILL grace for what an interrupted run left running (ms). */
const LEFTOVER_GRACE_MS = 2000;

/**
 * `loop run` / `loop resume` of a config file (its preset decides: auto-iterate, autoresearch,
 * autotune or collie); `flags` are the run flags commander parsed; a collie config is handed to
 * `loop collie run` through `runCommandLine`. Returns the exit code.
 *
 * @throws {LoopError} `CONFIG_INVALID` (with the config's lines), `LOCK_HELD`, ... as the run does.
 */
export async function runCommand(
  io: CliIo,
  configArg: string | undefined,
  resume: boolean,
  flags: Record<string, unknown>,
  runCommandLine: RunCommandLine,
): Promise<number> {
  const file = findConfigFile(configArg, io.cwd);
  const preset = detectPreset(file);
  const startNew = flags.new === true;
  if (startNew && preset !== 'auto-iterate')
    throw new UsageError(`--new applies to an auto-iterate config; ${file} is a ${preset} config`);
  if (preset === 'autoresearch')
    return (await import('./presets/autoresearch-command.js')).runAutoresearchCommand(io, file, flags);
  if (preset === 'autotune') return (await import('./presets/autotune-command.js')).runAutotuneCommand(io, file, flags);
  // collie runs are restartable: run and resume are both "step to the end".
  if (preset === 'collie') {
    if (flagOverrides(flags).fields.size > 0)
      throw new UsageError(
        'the run flags (--max-iterations, --keep, ...) do not apply to a collie config: set its budget in the file',
      );
    return runCommandLine(['collie', 'run', file]);
  }
  // Loaded on demand, so `loop collie ...` and `loop --help` start without auto-iterate and log-update.
  const [
    { REPORTED_EVENTS, prepareRun },
    { canShowLiveDisplay, countResultsRows, createPlainReporter, createTtyReporter },
  ] = await Promise.all([import('./prepare-run.js'), import('./progress.js')]);
  const read = await loadConfig(file);
  const loaded = { ...read, config: applyRunFlags(LOOP_CONFIG_KIND, read.config, flags, file) };
  const controller = new AbortController();
  // Lines before the reporter exists go straight to stdout; the reporter's own info afterwards.
  let info = (line: string): void => void io.stdout.write(`${line}\n`);
  const { withConfigLines } = await import('./config-error-lines.js');
  let configured: ReturnType<typeof prepareRun>;
  // The agent's "changed nothing" report goes through the reporter once it exists (above the live display).
  let notice = (message: string) => void io.stderr.write(`${message}\n`);
  try {
    configured = prepareRun(loaded, {
      resume,
      signal: controller.signal,
      onNotice: (message) => notice(message),
      startNew,
      onArchived: (a) => info(`archived the earlier run to ${a.into}/ (${a.files.join(', ')}); starting a new run`),
    });
  } catch (error) {
    throw await withConfigLines(error, loaded);
  }
  const { config } = loaded;
  const tty = io.tty ?? canShowLiveDisplay(io.stdout as CliIo['stdout'] & { columns?: number; rows?: number });
  const resultsPath = join(loaded.dir, configured.resolved.resultsFile);
  const reporterOptions = {
    stream: io.stdout,
    metricName: configured.resolved.metricName,
    maxIterations: config.maxIterations,
    timeBudgetS: config.timeBudgetS,
    // A resumed run's display counts the rows already written, as its summary does.
    ...(resume ? { countsBefore: (iteration: number) => countResultsRows(resultsPath, iteration) } : {}),
  };
  const reporter = tty ? createTtyReporter(reporterOptions) : createPlainReporter(reporterOptions);
  notice = (message) => void reporter.info(message);
  info = (line) => reporter.info(line);
  // The banner names the run branch, so it waits until the start is accepted (lock, clean tree,
  // branch created or checked out): the first event of the run, before the reporter's own line.
  const banner = [
    `config    ${loaded.file}`,
    `workspace ${loaded.dir}  branch ${configured.run.branch}${resume ? '  (resuming)' : ''}`,
    `metric    ${configured.resolved.metricName}, ${configured.resolved.direction} ` +
      `is better; ${config.maxIterations || 'unlimited'} iteration${config.maxIterations === 1 ? '' : 's'} ` +
      `of ${config.timeBudgetS} s; proposer ${config.proposer.type}`,
    ...(await import('./sandbox-banner.js')).sandboxBannerLines(config, configured.resolved),
    ...(config.holdout
      ? [(await import('./holdout-config.js')).holdoutSeal(config.holdout, config.proposer).banner]
      : []),
  ];
  const offBanner = (['resumed', 'iteration-started'] as const).map((type) =>
    configured.run.loop.on(type, () => {
      for (const off of offBanner) off();
      for (const line of banner) reporter.info(line);
      // Inside the workspace lock, before the first run: what a killed loop left running, which
      // core's pid-file sweep is about to end.
      const leftovers = describeLeftovers(configured.leftovers());
      if (leftovers) reporter.info(leftovers);
    }),
  );
  for (const type of REPORTED_EVENTS) configured.run.loop.on(type, reporter.event);
  // Kept rows that broke an advisory constraint are listed under the stop summary (issue 28).
  const warnings = (await import('./constraint-warnings.js')).createConstraintWarnings();
  // Loaded before the run: after a Ctrl-C to the process group, tsx's transform service is gone.
  const { readSpendLine } = await import('./spend-line.js');
  configured.run.loop.on('kept', warnings.event);
  // Start time, duration and metrics per row, for `loop report --format csv|json`.
  const { createIterationTimesWriter, ITERATION_TIMES_EVENTS, ITERATION_TIMES_FILE } =
    await import('./iteration-times.js');
  const timings = createIterationTimesWriter(join(loaded.dir, ITERATION_TIMES_FILE), {
    onError: (line) => io.stderr.write(`${line}\n`),
  });
  for (const type of ITERATION_TIMES_EVENTS) configured.run.loop.on(type, timings.event);
  const notifier = config.notify
    ? (await import('./notify.js')).createNotifier(config.notify, {
        cwd: loaded.dir,
        metricName: configured.resolved.metricName,
        onError: (line) => io.stderr.write(`${line}\n`),
      })
    : undefined;
  if (notifier) for (const type of REPORTED_EVENTS) configured.run.loop.on(type, notifier.event);
  let settle: () => void = () => {};
  const settled = new Promise<void>((r) => (settle = r));
  // Ctrl-C never resets the workspace itself: the engine's abort path reverts the in-flight
  // candidate through the git rollback; a second Ctrl-C kills the running command, waits for that
  // (bounded) and only then recovers through the same rollback. Live process groups are killed by
  // core's exit hook; the lock is released by its exit handler.
  const onSigint = createInterruptHandler({
    abort: () => controller.abort(),
    killRunning: configured.killRunning,
    settled,
    recover: configured.recoverLastKept,
    info: (line) => reporter.info(line),
    error: (line) => io.stderr.write(line),
    exit: (code) => process.exit(code),
    codes: { interrupted: EXIT_CODES.INTERRUPTED, restoreFailed: EXIT_CODES.RESTORE_FAILED },
    writes: configured.writes,
  });
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  try {
    const summary = await configured.run.run().finally(settle);
    await notifier?.flush();
    reporter.done(summary);
    // What the agent's proposals cost, on kept, discarded and crashed rows (issue 29), when they reported it.
    const spent = await readSpendLine(loaded.dir).catch(() => undefined);
    if (spent) io.stdout.write(`${spent}\n`);
    for (const line of warnings.lines()) io.stdout.write(`${line}\n`);
    return exitCodeForSummary(summary);
  } catch (error) {
    reporter.done();
    // An option the run refuses (a target file that does not exist) at its line in the config file.
    throw await withConfigLines(error, loaded);
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    // A resume that ran no iteration never reached core's sweep: end the leftovers it announced.
    await configured.endLeftovers(LEFTOVER_GRACE_MS).catch(() => []);
  }
}
