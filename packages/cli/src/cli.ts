import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { EXIT_CODES, exitCodeForError, exitCodeForSummary } from './exit-codes.js';
import { cloneRootOf, initNextSteps, writeStarterConfig, PRESET_NEXT_STEP, PRESETS, type Preset } from './init.js';
import { writeTargetConfig } from './init-target.js';
import { ConfigFileError } from './load-config.js';
import { describeLeftovers } from './leftover-runs.js';
import { TARGET_TYPES, type TargetType } from './target.js';
import { createInterruptHandler } from './interrupt.js';
import { findConfigFile, loadConfig, DEFAULT_CONFIG_FILES, LOOP_CONFIG_KIND } from './load-config.js';
import { addCollieCommands } from './collie/command.js';
import { addDashboardCommand } from './dashboard/command.js';
import { addReadCommands } from './read/commands.js';
import { addWorkerCommand } from './worker-command.js';
import { isUsageError, UsageError } from './usage-error.js';
import { addRunFlags, applyRunFlags, flagOverrides } from './run-flags.js';
import { detectPreset } from './presets/detect.js';

/** Where the CLI reads and writes: the process's streams by default, fakes in tests. */
export interface CliIo {
  /** Standard output. */
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  /** Standard error. */
  stderr: NodeJS.WritableStream;
  /** The working directory config paths are resolved against. */
  cwd: string;
  /** Use the live display; @default `stdout.isTTY` unless `CI` is set */
  tty?: boolean;
  /** Standard input (the interactive questions of `loop collie`). @default process.stdin */
  stdin?: NodeJS.ReadableStream;
  /**
   * Whether `loop init` may print the from-a-clone form `npx -y pnpm@12.4.2 --dir <clone> loop run
   * <absolute config>`: unless `false`, it does when this module is in a clone of the loop
   * repository, `<clone>` being that clone's root ({@link cloneRootOf}). @default true
   */
  fromClone?: boolean;
}

/** The version printed by `loop --version`. */
export const CLI_VERSION = '0.1.0';

/** SIGTERM-to-SIGKILL grace for what an interrupted run left running (ms). */
const LEFTOVER_GRACE_MS = 2000;

const EXIT_HELP = `
Exit codes:
  0    stopped by its policy (or the command succeeded)
  1    other failure
  2    invalid config or command line
  3    another loop holds the workspace lock (collie: another controller)
  4    a restore failed: inspect the workspace
  130  interrupted (Ctrl-C)`;

async function runCommand(io: CliIo, configArg: string | undefined, resume: boolean, flags: Record<string, unknown> = {}): Promise<number> {
  const file = findConfigFile(configArg, io.cwd);
  const preset = detectPreset(file);
  if (preset === 'autoresearch') return (await import('./presets/autoresearch-command.js')).runAutoresearchCommand(io, file, flags);
  if (preset === 'autotune') return (await import('./presets/autotune-command.js')).runAutotuneCommand(io, file, flags);
  // collie runs are restartable: run and resume are both "step to the end".
  if (preset === 'collie') {
    if (flagOverrides(flags).fields.size > 0) throw new UsageError('the run flags (--max-iterations, --keep, ...) do not apply to a collie config: set its budget in the file');
    return runCli(['collie', 'run', file], io);
  }
  // Loaded on demand, so `loop collie ...` and `loop --help` start without auto-iterate and log-update.
  const [{ REPORTED_EVENTS, prepareRun }, { countResultsRows, createPlainReporter, createTtyReporter }] = await Promise.all([import('./run.js'), import('./progress.js')]);
  const read = await loadConfig(file);
  const loaded = { ...read, config: applyRunFlags(LOOP_CONFIG_KIND, read.config, flags, file) };
  const controller = new AbortController();
  const { withConfigLines } = await import('./config-error-lines.js');
  let configured: ReturnType<typeof prepareRun>;
  // The agent's "changed nothing" report goes through the reporter once it exists (above the live display).
  let notice = (message: string) => void io.stderr.write(`${message}\n`);
  try {
    configured = prepareRun(loaded, { resume, signal: controller.signal, onNotice: (message) => notice(message) });
  } catch (error) {
    throw await withConfigLines(error, loaded);
  }
  const { config } = loaded;
  const tty = io.tty ?? (io.stdout.isTTY === true && !process.env.CI);
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
  // The banner names the run branch, so it waits until the start is accepted (lock, clean tree,
  // branch created or checked out): the first event of the run, before the reporter's own line.
  const banner = [
    `config    ${loaded.file}`,
    `workspace ${loaded.dir}  branch ${configured.run.branch}${resume ? '  (resuming)' : ''}`,
    `metric    ${configured.resolved.metricName}, ${configured.resolved.direction} is better; ${config.maxIterations || 'unlimited'} iterations of ${config.timeBudgetS} s; proposer ${config.proposer.type}`,
    ...(await import('./sandbox-banner.js')).sandboxBannerLines(config, configured.resolved),
  ];
  const offBanner = (['resumed', 'iteration-started'] as const).map((type) => configured.run.loop.on(type, () => {
    for (const off of offBanner) off();
    for (const line of banner) reporter.info(line);
    // Inside the workspace lock, before the first run: what a killed loop left running, which
    // core's pid-file sweep is about to end.
    const leftovers = describeLeftovers(configured.leftovers());
    if (leftovers) reporter.info(leftovers);
  }));
  for (const type of REPORTED_EVENTS) configured.run.loop.on(type, reporter.event);
  const notifier = config.notify ? (await import('./notify.js')).createNotifier(config.notify, { cwd: loaded.dir, metricName: configured.resolved.metricName, onError: (line) => io.stderr.write(`${line}\n`) }) : undefined;
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

/** The commander program of `loop`, writing to `io`; each action stores its exit code in `setCode`. */
export function createProgram(io: CliIo, setCode: (code: number) => void): Command {
  const program = new Command('loop')
    .description('Run keep/revert optimisation loops from a config file, and plot their progress.')
    .version(CLI_VERSION)
    .showHelpAfterError()
    .addHelpText('after', EXIT_HELP)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  program
    .command('init')
    .description('write a commented starter config; with --target <type> <path>, one for that target (seed 001: /auto-iterate <target-type> <target-path>)')
    .argument('[file]', 'the config file to write, or with --target the target path', DEFAULT_CONFIG_FILES[0])
    .addOption(new Option('--preset <preset>', 'the preset').choices(PRESETS).default('auto-iterate'))
    .addOption(new Option('--target <type>', 'the target type: skill (a SKILL.md), skill-full (a skill folder), memory (a memory folder), code (a file, with --eval)').choices(TARGET_TYPES))
    .option('--agent <name>', 'memory: score only this agent\'s subfolder')
    .option('--questions <file>', 'memory: the question set (default <folder>.questions.json)')
    .option('--eval <command>', 'code: the evaluation command printing "score: <n>"')
    .option('--config <file>', 'with --target: the config file to write', DEFAULT_CONFIG_FILES[0])
    .option('--force', 'overwrite an existing file', false)
    .action(async (arg: string, opts: { preset: Preset; force: boolean; target?: TargetType; agent?: string; questions?: string; eval?: string; config: string }) => {
      const file = opts.target ? opts.config : arg;
      const path = resolve(io.cwd, file);
      if (opts.target) {
        const target = resolve(io.cwd, arg);
        if (arg === DEFAULT_CONFIG_FILES[0] || !existsSync(target)) throw new ConfigFileError(path, [{ path: 'target.path', message: `${arg === DEFAULT_CONFIG_FILES[0] ? 'name the target: loop init --target <type> <path>' : `${target} does not exist`}` }]);
        const rel = (p: string) => relative(dirname(path), resolve(io.cwd, p)) || '.';
        await writeTargetConfig(path, { type: opts.target, path: rel(arg), ...(opts.agent ? { agent: opts.agent } : {}), ...(opts.questions ? { questions: rel(opts.questions) } : {}), ...(opts.eval ? { evalCommand: opts.eval } : {}) }, opts.force);
        io.stdout.write(`wrote ${path}\ncommit your files, then run\n  loop run${file === DEFAULT_CONFIG_FILES[0] ? '' : ` ${file}`}\n`);
        setCode(EXIT_CODES.STOPPED);
        return;
      }
      await writeStarterConfig(path, opts.preset, opts.force);
      const cloneRoot = io.fromClone === false ? undefined : cloneRootOf(fileURLToPath(import.meta.url));
      io.stdout.write(`wrote ${path}\n${initNextSteps(file, path, cloneRoot, PRESET_NEXT_STEP[opts.preset])}\n`);
      setCode(EXIT_CODES.STOPPED);
    });

  addRunFlags(
    program
      .command('run')
      .description(`run the loop of a config file (default: ${DEFAULT_CONFIG_FILES.join(', ')}); flags override its fields for this run`)
      .argument('[config]', 'the config file (YAML, JSON or TypeScript)'),
  ).action(async (config: string | undefined, opts: Record<string, unknown>) => setCode(await runCommand(io, config, false, opts)));

  addRunFlags(
    program
      .command('resume')
      .description('continue an interrupted run from its last keep commit and results.tsv; flags override the config\'s fields')
      .argument('[config]', 'the config file (YAML, JSON or TypeScript)'),
  ).action(async (config: string | undefined, opts: Record<string, unknown>) => setCode(await runCommand(io, config, true, opts)));

  program
    .command('status')
    .description('print where a run stands: iteration, best, last rows, stop reason, lock')
    .argument('[dir]', 'the workspace, or a config file naming it', '.')
    .option('--rows <n>', 'how many of the last rows to show', '5')
    .option('--json', 'print JSON', false)
    .action(async (target: string, opts: { rows: string; json: boolean }) => {
      const path = resolve(io.cwd, target);
      const isFile = statSync(path, { throwIfNoEntry: false })?.isFile() === true;
      const preset = isFile ? detectPreset(path) : 'auto-iterate';
      if (preset === 'collie') return setCode(await runCli(['collie', 'status', path, ...(opts.json ? ['--json'] : [])], io));
      if (preset === 'autotune') {
        const { formatAutotuneStatus, loadAutotuneConfig, readAutotuneStatus } = await import('./presets/autotune-command.js');
        const tune = await readAutotuneStatus(await loadAutotuneConfig(path));
        io.stdout.write(`${opts.json ? JSON.stringify(tune, null, 2) : formatAutotuneStatus(tune)}\n`);
        return setCode(EXIT_CODES.STOPPED);
      }
      if (preset === 'autoresearch') {
        const { formatPassStatus, loadAutoresearchConfig, readPassStatus } = await import('./presets/autoresearch-command.js');
        const pass = await readPassStatus(await loadAutoresearchConfig(path));
        io.stdout.write(`${opts.json ? JSON.stringify(pass, null, 2) : formatPassStatus(pass, Number.parseInt(opts.rows, 10) || 5)}\n`);
        return setCode(EXIT_CODES.STOPPED);
      }
      const dir = isFile ? (await loadConfig(path)).dir : path;
      const { formatStatus, readStatus } = await import('./status.js');
      const status = await readStatus(dir);
      const { formatWorkersStatus, readWorkersStatus } = await import('./worker-command.js');
      const workers = await readWorkersStatus(isFile ? path : undefined, dir); // parallel.workers: the workers seen (issue 15)
      io.stdout.write(`${opts.json ? JSON.stringify(workers ? { ...status, workers } : status, null, 2) : formatStatus(status, Number.parseInt(opts.rows, 10) || 5)}\n`);
      if (workers && !opts.json) io.stdout.write(`${formatWorkersStatus(workers)}\n`);
      setCode(EXIT_CODES.STOPPED);
    });

  program
    .command('mcp')
    .description('serve the MCP tools of a workspace over stdio for a coding agent: evaluate its edit (kept or reverted), run an iteration, status, rows, diffs (docs/mcp.md)')
    .option('--dir <workspace>', 'the auto-iterate workspace', '.')
    .action(async (opts: { dir: string }) => {
      const [{ serveLoopMcp }, cli] = await Promise.all([import('@loop/mcp'), import('./index.js')]);
      await serveLoopMcp({ dir: resolve(io.cwd, opts.dir), host: cli, version: CLI_VERSION });
      setCode(EXIT_CODES.STOPPED);
    });

  addReadCommands(program, io, setCode);
  addCollieCommands(program, io, setCode);
  addDashboardCommand(program, io, setCode);
  addWorkerCommand(program, io, setCode);
  return program;
}

/**
 * Runs `loop` with `argv` (without the node and script paths) and returns the exit code (see
 * {@link EXIT_CODES}); errors are printed to `io.stderr` with their code, never thrown.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let code: number = EXIT_CODES.STOPPED;
  const program = createProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT_CODES.STOPPED : EXIT_CODES.CONFIG;
    }
    const e = error as Error & { code?: string };
    const code = typeof e.code === 'string' && !isUsageError(error) ? ` [${e.code}]` : '';
    io.stderr.write(`error${code}: ${e.message ?? String(error)}\n`);
    return exitCodeForError(error);
  }
}
