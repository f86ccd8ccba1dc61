import { existsSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIo } from './cli-io.js';
import { DEFAULT_CONFIG_FILES, EXIT_CODES, type ExitCode, type Preset, type TargetType } from './cli-constants.js';
import { cloneRootOf, initNextSteps, PRESET_NEXT_STEP, writeStarterConfig } from './starter-config.js';
import { writeTargetConfig } from './init-target.js';
import { ConfigFileError } from './load-config.js';
import { UsageError } from './usage-error.js';

/** The options of `loop init` as commander parses them. */
export interface InitCommandOptions {
  readonly preset: Preset;
  readonly force: boolean;
  readonly target?: TargetType;
  readonly agent?: string;
  readonly questions?: string;
  readonly eval?: string;
  readonly config: string;
}

/**
 * `loop init [file]` (a starter config for a preset) and `loop init --target <type> <path>`;
 * prints what to do next and returns the exit code.
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` when `--target` names no path or one that does not exist.
 * @throws {UsageError} when the file exists and `force` is not set, or is not a `.yaml`/`.yml` file (the
 *   starter configs are YAML; a `.ts` or `.json` config is written by hand, see docs/cli.md).
 */
export async function runInitCommand(io: CliIo, arg: string, opts: InitCommandOptions): Promise<ExitCode> {
  const file = opts.target ? opts.config : arg;
  const path = resolve(io.cwd, file);
  if (!['.yaml', '.yml'].includes(extname(path).toLowerCase()))
    throw new UsageError(
      `loop init writes a YAML config: name a .yaml or .yml file (got ${file}); ` +
        'a .ts or .json config is written by hand (docs/cli.md)',
    );
  if (opts.target) {
    const target = resolve(io.cwd, arg);
    if (arg === DEFAULT_CONFIG_FILES[0] || !existsSync(target)) {
      const message =
        arg === DEFAULT_CONFIG_FILES[0]
          ? 'name the target: loop init --target <type> <path>'
          : `${target} does not exist`;
      throw new ConfigFileError(path, [{ path: 'target.path', message }]);
    }
    const rel = (p: string) => relative(dirname(path), resolve(io.cwd, p)) || '.';
    await writeTargetConfig(
      path,
      {
        type: opts.target,
        path: rel(arg),
        ...(opts.agent ? { agent: opts.agent } : {}),
        ...(opts.questions ? { questions: rel(opts.questions) } : {}),
        ...(opts.eval ? { evalCommand: opts.eval } : {}),
      },
      opts.force,
    );
    io.stdout.write(
      `wrote ${path}\ncommit your files, then run\n  loop run${file === DEFAULT_CONFIG_FILES[0] ? '' : ` ${file}`}\n`,
    );
    return EXIT_CODES.STOPPED;
  }
  await writeStarterConfig(path, opts.preset, opts.force);
  if (opts.preset === 'autoresearch') {
    // The four harness files its config names (rubric, reflection prompt, test gate, reflection tool).
    const { written, kept } = await (
      await import('./presets/autoresearch-init.js')
    ).writeAutoresearchStarterFiles(dirname(path), opts.force);
    for (const f of written) io.stdout.write(`wrote ${join(dirname(path), f)}\n`);
    if (kept.length > 0) io.stdout.write(`kept ${kept.join(', ')} (they exist; --force overwrites them)\n`);
  }
  const cloneRoot = io.fromClone === false ? undefined : cloneRootOf(fileURLToPath(import.meta.url));
  io.stdout.write(`wrote ${path}\n${initNextSteps(file, path, cloneRoot, PRESET_NEXT_STEP[opts.preset])}\n`);
  return EXIT_CODES.STOPPED;
}
