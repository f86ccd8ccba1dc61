import { resolve } from 'node:path';
import type { AutoiterStepOutcome } from '@loop/collie';
import type { Command } from 'commander';
import { COLLIE_CONFIG_FILES, EXIT_CODES } from '../cli-constants.js';
import type { CliIo } from '../cli-io.js';

const line = (stream: NodeJS.WritableStream) => (text: string) => void stream.write(`${text}\n`);

async function controller(io: CliIo, configArg: string | undefined, ticks: NodeJS.WritableStream) {
  // @loop/collie and the config loader are loaded when a collie command runs, not at start-up.
  const [{ createAutoiter }, { collieAutoiterOptions, findCollieConfigFile, loadCollieConfig }] = await Promise.all([
    import('@loop/collie'),
    import('./load.js'),
  ]);
  const loaded = await loadCollieConfig(findCollieConfigFile(configArg, io.cwd));
  const options = collieAutoiterOptions(loaded, {
    output: line(ticks),
    ...(io.stdin ? { input: io.stdin } : {}),
    prompts: ticks,
  });
  return createAutoiter(options);
}

/**
 * Ctrl-C / SIGTERM while a step runs: say where the run stands and exit 130 at once. Exiting runs
 * core's exit hook, which kills every live process group (the trigger, an agent, a flow command);
 * the interrupted step left no state behind that the next `step` / `run` cannot redo.
 */
function exitOnInterrupt(io: CliIo): () => void {
  const onSignal = () => {
    io.stderr.write(
      'interrupted: the trigger and agents were stopped; `loop collie run` (or `step`) redoes the interrupted step\n',
    );
    process.exit(EXIT_CODES.INTERRUPTED);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

const NESTED = 'refused: a nested call (COLLIE_AUTOITER_ACTIVE is set: this runs inside a collie agent or trigger)';

/**
 * Adds `loop collie step | run | status | init` to `program`.
 *
 * Exit codes: 0 the step ran, or the run reached a terminal status (converged, budget_exhausted,
 * escalated: printed); 1 other failure (a nested call refused, an agent or git failure, ...);
 * 2 invalid config (`CONFIG_INVALID`, also invalid Stage 0 answers); 3 another controller holds the
 * lock (`LOCK_HELD`); 130 interrupted (Ctrl-C / SIGTERM: live process groups are killed on exit).
 */
export function addCollieCommands(program: Command, io: CliIo, setCode: (code: number) => void): void {
  const collie = program
    .command('collie')
    .description(`drive the collie autoiter pipeline from a config file (default: ${COLLIE_CONFIG_FILES.join(', ')})`);

  collie
    .command('step')
    .description(
      'run one resumable unit (step()) and print its ticks; the terminal branch prints the completion signal',
    )
    .argument('[config]', 'the collie config file (YAML, JSON or TypeScript)')
    .option('--json', 'print the step outcome as JSON on stdout (ticks go to stderr)', false)
    .action(async (config: string | undefined, opts: { json: boolean }) => {
      const autoiter = await controller(io, config, opts.json ? io.stderr : io.stdout);
      const release = exitOnInterrupt(io);
      const outcome = await autoiter.step().finally(release);
      if (opts.json) io.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
      if (outcome.kind === 'nested-refused') {
        io.stderr.write(`${NESTED}\n`);
        setCode(EXIT_CODES.FAILED);
        return;
      }
      setCode(EXIT_CODES.STOPPED);
    });

  collie
    .command('run')
    .description('step until the run ends (converged, budget_exhausted or escalated) and print its status')
    .argument('[config]', 'the collie config file (YAML, JSON or TypeScript)')
    .option('--json', 'print every step outcome as a JSON array on stdout (ticks go to stderr)', false)
    .option('--max-steps <n>', 'fail (STATE_CORRUPT) if the run has not ended after this many steps', '10000')
    .action(async (config: string | undefined, opts: { json: boolean; maxSteps: string }) => {
      const autoiter = await controller(io, config, opts.json ? io.stderr : io.stdout);
      const maxSteps = Number.parseInt(opts.maxSteps, 10);
      const { LoopError } = await import('@loop/core');
      if (!Number.isInteger(maxSteps) || maxSteps < 1)
        throw new LoopError(
          'CONFIG_INVALID',
          `[loop] [cli] --max-steps must be a positive integer, found ${JSON.stringify(opts.maxSteps)}`,
        );
      const release = exitOnInterrupt(io);
      const outcomes: AutoiterStepOutcome[] = await autoiter.run({ maxSteps }).finally(release);
      const last = outcomes.at(-1);
      if (opts.json) io.stdout.write(`${JSON.stringify(outcomes, null, 2)}\n`);
      if (!last || last.kind !== 'done') {
        io.stderr.write(`${NESTED}\n`);
        setCode(EXIT_CODES.FAILED);
        return;
      }
      if (!opts.json) io.stdout.write(`run ${last.runId} ended: ${last.status} (${outcomes.length} steps)\n`);
      setCode(EXIT_CODES.STOPPED);
    });

  collie
    .command('status')
    .description(
      'print where the run stands: run id, status, iteration, stage, stop ' +
        'reason, tokens, status.md, lock (takes no lock)',
    )
    .argument('[config]', 'the collie config file (YAML, JSON or TypeScript)')
    .option('--json', 'print JSON', false)
    .action(async (config: string | undefined, opts: { json: boolean }) => {
      const [{ findCollieConfigFile, loadCollieConfig }, { formatCollieStatus, readCollieStatus }] = await Promise.all([
        import('./load.js'),
        import('./status.js'),
      ]);
      const loaded = await loadCollieConfig(findCollieConfigFile(config, io.cwd));
      const status = await readCollieStatus(loaded);
      io.stdout.write(`${opts.json ? JSON.stringify(status, null, 2) : formatCollieStatus(status)}\n`);
      setCode(EXIT_CODES.STOPPED);
    });

  collie
    .command('init')
    .description('write a commented starter collie config')
    .argument('[file]', 'the config file to write', COLLIE_CONFIG_FILES[0])
    .option('--force', 'overwrite an existing file', false)
    .action(async (file: string, opts: { force: boolean }) => {
      const path = resolve(io.cwd, file);
      const { writeCollieStarterConfig } = await import('./init.js');
      await writeCollieStarterConfig(path, opts.force);
      io.stdout.write(
        `wrote ${path}\nedit projectId, task, agent.command and flow.testCommand ` +
          `(or add answers: for a queued run), then run\n  loop collie ` +
          `step${file === COLLIE_CONFIG_FILES[0] ? '' : ` ${file}`}    (one unit ` +
          `per call)\n  loop collie ` +
          `run${file === COLLIE_CONFIG_FILES[0] ? '' : ` ${file}`}     (to the ` +
          `end)\n`,
      );
      setCode(EXIT_CODES.STOPPED);
    });
}
