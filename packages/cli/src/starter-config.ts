import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { PRESETS, type Preset } from './cli-constants.js';
import { collieStarterConfig } from './collie/init.js';
import { DEFAULT_CONFIG_FILES } from './load-config.js';
import { autoresearchStarterConfig } from './presets/autoresearch-init.js';
import { autotuneStarterConfig } from './presets/autotune-config.js';
import { schemaModeline, schemaRefFor } from './schema-ref.js';
import { UsageError } from './usage-error.js';

// The presets `loop init` knows: auto-iterate (seeds 001/003), autoresearch (seed 002), autotune (seed 004), collie
// (seed 000).
export { PRESETS, type Preset };

/**
 * The `$schema` of {@link starterConfig} when none is given: where editors find the JSON Schema
 * when `@loop/cli` is installed in the config's folder. `loop init` writes the path of the schema
 * of the CLI that runs it instead ({@link schemaRefFor}), which resolves wherever the file is.
 */
export const SCHEMA_HINT = './node_modules/@loop/cli/schema/loop-config.schema.json';

/**
 * The commented starter config of a preset, as YAML; each validates as is. auto-iterate: a TPE
 * proposer on `config.json`, evaluated by `node eval.mjs` printing `score: <n>`; autoresearch: a
 * function pass of shell commands; collie: the `loop collie init` starter.
 *
 * @param schema the auto-iterate and collie starters' first line, `# yaml-language-server:
 *   $schema=<schema>`; `null` leaves the line out. @default {@link SCHEMA_HINT} (collie: its own)
 */
export function starterConfig(preset: Preset = 'auto-iterate', schema?: string | null): string {
  switch (preset) {
    case 'autoresearch':
      return autoresearchStarterConfig();
    case 'autotune':
      return autotuneStarterConfig();
    case 'collie':
      return collieStarterConfig(schema);
    case 'auto-iterate':
      return (
        `${schemaModeline(schema === undefined ? SCHEMA_HINT : (schema ?? undefined))}# loop config, preset ` +
        `auto-iterate. Run it with "loop run" (from a clone of the loop repository:
# "npx -y pnpm@12.4.2 --dir <the clone> loop run <this file's absolute path>"), check it with "loop status",
# plot it with "loop report --html .loop/progress.html" (.loop/ is never tracked, so no revert deletes it).
# Every experiment is committed on the branch auto-iterate/<tag> of the git repository in dir;
# discarded and crashed experiments are reset to the last keep. results.tsv, run.log and .loop/
# stay out of git.
preset: auto-iterate

# The workspace: a git repository with everything committed, relative to this file.
dir: .
# The run branch is auto-iterate/<tag>. Default: the UTC date and time of the run, e.g. mar21-143005.
# tag: first-try

# The files the loop may modify, and the files it must never touch (the evaluation).
targetFiles: [config.json]
readOnlyFiles: [eval.mjs]

# One experiment: a shell command that prints "<metricName>: <value>" (e.g. "score: 0.123").
runCommand: node eval.mjs
metricName: score
# lower or higher is better.
direction: lower
# pattern: '^score:\\s*(\\S+)'   # a regex with one group; the default is built from metricName

# Time budget per run (passed as LOOP_TIME_BUDGET_S) and the hard kill timeout, in seconds.
timeBudgetS: 300
killTimeoutS: 600

# When to stop: iterations after the baseline (0 = until Ctrl-C), and optional extras.
maxIterations: 20
# plateau: 10          # stop after 10 iterations in a row without a keep
# targetScore: 0.5     # stop once the best score reaches this
# wallClockS: 28800    # stop after 8 hours

# Who makes the edits. The TPE proposer models the rows so far and changes one or several values
# of a JSON or YAML file per iteration (type: mutator changes one value at random instead):
proposer:
  type: tpe
  file: config.json
  seed: 1
  space:
    lr: { min: 0.0001, max: 0.1, scale: log }
    layers: { min: 1, max: 8, integer: true }
    activation: { values: [relu, tanh, gelu] }
# ... or an agent CLI that gets a prompt on stdin and edits the target files:
# proposer:
#   type: agent
#   command: claude -p
#   goal: Lower the validation loss of train.py by editing its hyperparameters.
#   timeoutS: 600
#   sandbox: auto   # bwrap where it works: writes only targetFiles (and writable); its /tmp is
#                   # private, the host /tmp hidden; loop run's banner says so. none turns it off.

# Crash repair attempts per iteration, and the circuit breaker.
maxRepairAttempts: 2
pauseAfterCrashes: 3
cooldownAfterDiscards: 5
notifyAfterDiscards: 10
logFile: run.log
# env: { CUDA_VISIBLE_DEVICES: "0" }

# The checks gate: a keep only stands when this correctness command passes (output in .loop/checks.log).
# checks: { command: "npm test", timeoutS: 300, onFail: reject }
`
      );
  }
}

/** What `loop init --preset <preset>` asks the user to edit before the first run. */
export const PRESET_NEXT_STEP: Readonly<Record<Preset, string>> = {
  'auto-iterate': 'edit targetFiles, runCommand and metricName, commit your files, then run',
  autoresearch:
    'edit files, rubricFiles, gate, reflection and proposer (and the starter ' +
    'harness files it wrote); commit everything but the mutable files, add ' +
    '.aid/ to .gitignore, then run',
  autotune: 'edit worker.improveCommand and worker.evaluateCommand, add projects/ to .gitignore, commit, then run',
  collie: 'edit projectId, task, agent.command and flow.testCommand, then run',
};

/** The pnpm version this repository pins (root `packageManager`), for the from-a-clone command. */
const PNPM = 'pnpm@12.4.2';

/**
 * The root folder of the clone of the loop repository that `file` (this module's path) is a
 * source or build file of: the nearest ancestor holding `pnpm-workspace.yaml` and
 * `packages/cli/package.json`; `undefined` under `node_modules` (an installed `@loop/cli` is not a
 * clone) or when no ancestor matches.
 */
export function cloneRootOf(file: string): string | undefined {
  if (file.split(sep).includes('node_modules')) return undefined;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml')) && existsSync(join(dir, 'packages', 'cli', 'package.json')))
      return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** True when `file` (this module's path) is a file of a clone of the loop repository: see {@link cloneRootOf}. */
export function isFromClone(file: string): boolean {
  return cloneRootOf(file) !== undefined;
}

/** `s` as one POSIX shell word: as is when it has no special characters, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;
}

/**
 * The closing hint of `loop init`: `loop run` (naming the file unless it is the default). From a
 * clone of the repository (`cloneRoot`, its root folder) it adds the form through the root `loop`
 * script, `npx -y pnpm@12.4.2 --dir <cloneRoot> loop run <path>`: `--dir` makes it work from any
 * folder, and since pnpm runs the script in the clone's root, the config is named by its absolute
 * `path`. Both are shell-quoted when needed. An installed CLI never prints the clone form.
 */
export function initNextSteps(
  file: string,
  path: string,
  cloneRoot?: string,
  what = 'edit targetFiles, runCommand and metricName, commit your files, then run',
): string {
  const installed = `loop run${file === DEFAULT_CONFIG_FILES[0] ? '' : ` ${shellWord(file)}`}`;
  if (cloneRoot === undefined) return `${what}\n  ${installed}`;
  return (
    `${what}\n  ${installed}    (with @loop/cli installed)\n  npx -y ${PNPM} ` +
    `--dir ${shellWord(cloneRoot)} loop run ${shellWord(path)}    (from a ` +
    `clone of the loop repository, in any folder)`
  );
}

/**
 * Writes the starter config of `preset` to `path`, its `$schema` modeline naming the JSON Schema
 * this CLI ships by a path relative to `path` ({@link schemaRefFor}; left out if that file is missing).
 *
 * @throws {UsageError} when `path` exists and `force` is not set.
 */
export async function writeStarterConfig(path: string, preset: Preset = 'auto-iterate', force = false): Promise<void> {
  if (existsSync(path) && !force) {
    throw new UsageError(
      `loop init: ${path} already exists; pass --force to overwrite it, or name another file (loop init <file>)`,
    );
  }
  await writeFile(path, starterConfig(preset, schemaRefFor(path, preset === 'collie' ? 'collie' : 'loop') ?? null));
}
