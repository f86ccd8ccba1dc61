import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import {
  CLI_VERSION,
  DEFAULT_CONFIG_FILES,
  EXIT_CODES,
  PRESETS,
  TARGET_TYPES,
  type Preset,
  type TargetType,
} from './cli-constants.js';
import { addCollieCommands } from './collie/command.js';
import { addDashboardCommand } from './dashboard/command.js';
import { addReadCommands } from './read/commands.js';
import { addWorkerCommand } from './worker-command.js';
import { isUsageError, UsageError } from './usage-error.js';
import { addRunFlags } from './run-flags.js';
import type { CliIo, RunCommandLine } from './cli-io.js';

// Declaring the commands loads only commander and the modules above, which import no other package:
// each action imports what it runs when it runs (test/startup-imports.test.ts checks the module graph).

export { CLI_VERSION };

const EXIT_HELP = `
Exit codes:
  0    stopped by its policy or cleanly by Ctrl-C (or the command succeeded)
  1    other failure
  2    invalid config or command line
  3    another loop holds the workspace lock (collie: another controller)
  4    a restore failed: inspect the workspace
  130  exited by Ctrl-C before the stop sequence completed (see docs/cli.md)`;

/** The commander program of `loop`, writing to `io`; each action stores its exit code in `setCode`. */
export function createProgram(io: CliIo, setCode: (code: number) => void): Command {
  const program = new Command('loop')
    .description('Run keep/revert optimisation loops from a config file, and plot their progress.')
    .version(CLI_VERSION)
    .showHelpAfterError()
    .addHelpText('after', EXIT_HELP)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  // A command that hands over to another (`loop run` of a collie config runs `loop collie run`).
  const again: RunCommandLine = (argv) => runCli(argv, io);

  program
    .command('init')
    .description(
      'write a commented starter config; with --target <type> <path>, one for ' +
        'that target (seed 001: /auto-iterate <target-type> <target-path>)',
    )
    .argument('[file]', 'the config file to write, or with --target the target path', DEFAULT_CONFIG_FILES[0])
    .addOption(new Option('--preset <preset>', 'the preset').choices(PRESETS).default('auto-iterate'))
    .addOption(
      new Option(
        '--target <type>',
        'the target type: skill (a SKILL.md), skill-full (a skill folder), ' +
          'memory (a memory folder), code (a file, with --eval)',
      ).choices(TARGET_TYPES),
    )
    .option('--agent <name>', "memory: score only this agent's subfolder")
    .option('--questions <file>', 'memory: the question set (default <folder>.questions.json)')
    .option('--eval <command>', 'code: the evaluation command printing "score: <n>"')
    .option('--config <file>', 'with --target: the config file to write', DEFAULT_CONFIG_FILES[0])
    .option('--force', 'overwrite an existing file', false)
    .action(
      async (
        arg: string,
        opts: {
          preset: Preset;
          force: boolean;
          target?: TargetType;
          agent?: string;
          questions?: string;
          eval?: string;
          config: string;
        },
      ) => {
        setCode(await (await import('./init-command.js')).runInitCommand(io, arg, opts));
      },
    );

  addRunFlags(
    program
      .command('run')
      .description(
        `run the loop of a config file ` +
          `(default: ${DEFAULT_CONFIG_FILES.join(', ')}); flags override its fields ` +
          `for this run`,
      )
      .argument('[config]', 'the config file (YAML, JSON or TypeScript)')
      .option(
        '--new',
        'start a new run where an earlier one finished: its results.tsv and ' +
          '.loop/ files move to .loop/runs/<its tag>/ first (refused while a run ' +
          'holds the workspace)',
      ),
  ).action(async (config: string | undefined, opts: Record<string, unknown>) =>
    setCode(await (await import('./run-command.js')).runCommand(io, config, false, opts, again)),
  );

  addRunFlags(
    program
      .command('resume')
      .description(
        "continue an interrupted run from its last keep commit and results.tsv; flags override the config's fields",
      )
      .argument('[config]', 'the config file (YAML, JSON or TypeScript)'),
  ).action(async (config: string | undefined, opts: Record<string, unknown>) =>
    setCode(await (await import('./run-command.js')).runCommand(io, config, true, opts, again)),
  );

  program
    .command('status')
    .description('print where a run stands: iteration, best, last rows, stop reason, lock')
    .argument('[dir]', 'the workspace, or a config file naming it', '.')
    .option('--rows <n>', 'how many of the last rows to show', '5')
    .option('--json', 'print JSON', false)
    .action(async (target: string, opts: { rows: string; json: boolean }) => {
      setCode(await (await import('./status-command.js')).runStatusCommand(io, target, opts, again));
    });

  program
    .command('mcp')
    .description(
      'serve the MCP tools of a workspace over stdio for a coding agent: ' +
        'evaluate its edit (kept or reverted), run an iteration, status, rows, ' +
        'diffs, run logs (docs/mcp.md)',
    )
    .option('--dir <workspace>', 'the auto-iterate workspace', '.')
    .action(async (opts: { dir: string }) => {
      const dir = resolve(io.cwd, opts.dir);
      // A typo in `claude mcp add ... --dir` would otherwise give a server whose every tool fails oddly.
      if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
        throw new UsageError(
          `loop mcp: --dir ${dir} is not a folder; name the workspace (a git repository) the agent edits`,
        );
      }
      const { serveLoopMcp } = await import('@loop/mcp');
      // The loop engine (auto-iterate, git, the plot: ./mcp-host.ts) is loaded by the first tool
      // call that needs it, so `initialize` is answered without it (coding agents time out slow servers).
      const host = async () => (await import('./mcp-host.js')).loopMcpHost;
      await serveLoopMcp({ dir, host, version: CLI_VERSION });
      setCode(EXIT_CODES.STOPPED);
    });

  addReadCommands(program, io, setCode);
  addCollieCommands(program, io, setCode);
  addDashboardCommand(program, io, setCode);
  addWorkerCommand(program, io, setCode);
  program
    .command('holdout')
    .description("score the current state on the config's sealed holdout, once (docs/holdout.md)")
    .argument('[config]', 'the config file')
    .action(async (config: string | undefined) =>
      setCode(await (await import('./holdout-command.js')).runHoldoutCommand(io, config)),
    );
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
    return (await import('./exit-codes.js')).exitCodeForError(error);
  }
}
