/**
 * The constants the `loop` command line is declared with (exit codes, default file names, the
 * choices of its options). This module imports nothing, so declaring the commands costs nothing:
 * each command loads its implementation when it runs (`loop --version` loads no command).
 */

/**
 * The exit codes of `loop`, distinct per outcome:
 *
 * - `0` STOPPED: the run stopped by its policy (max iterations, plateau, target, wall clock, no file
 *   changes), or by Ctrl-C/SIGTERM once its stop sequence completed (candidate rolled back, best
 *   restored, state written: a clean stop, the usual end of an unlimited run), or a command other
 *   than `run`/`resume` succeeded.
 * - `1` FAILED: any other failure (not a git repository, dirty tree, baseline crashed, ...).
 * - `2` CONFIG: the config file or the command line is invalid (`CONFIG_INVALID`, or a `UsageError`).
 * - `3` LOCK_HELD: another loop holds the workspace lock (`LOCK_HELD`).
 * - `4` RESTORE_FAILED: a revert or restore did not verify; inspect the workspace (`RESTORE_FAILED`).
 * - `130` INTERRUPTED: the process exited before the run's stop sequence completed (a second Ctrl-C
 *   past the grace, after the CLI recovered the last kept commit itself; a third Ctrl-C).
 */
export const EXIT_CODES = {
  STOPPED: 0,
  FAILED: 1,
  CONFIG: 2,
  LOCK_HELD: 3,
  RESTORE_FAILED: 4,
  INTERRUPTED: 130,
} as const;

/** One of the values of {@link EXIT_CODES}. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The version printed by `loop --version`. */
export const CLI_VERSION = '0.1.0';

/** The file names `loop run` looks for, in order, when no config is named. */
export const DEFAULT_CONFIG_FILES = [
  'loop.config.yaml',
  'loop.config.yml',
  'loop.config.json',
  'loop.config.ts',
] as const;

/** The file names `loop collie ...` looks for, in order, when no config is named. */
export const COLLIE_CONFIG_FILES = [
  'collie.config.yaml',
  'collie.config.yml',
  'collie.config.json',
  'collie.config.ts',
] as const;

/** The presets `loop init --preset` writes a starter config for. */
export const PRESETS = ['auto-iterate', 'autoresearch', 'autotune', 'collie'] as const;

/** One of {@link PRESETS}. */
export type Preset = (typeof PRESETS)[number];

/** The target types of seed 001 (`loop init --target <type> <path>`, `target.type`). */
export const TARGET_TYPES = ['skill', 'skill-full', 'memory', 'code'] as const;

/** One of {@link TARGET_TYPES}. */
export type TargetType = (typeof TARGET_TYPES)[number];

/** The keep rules a config (or `--keep`) can name. */
export const KEEP_POLICIES = ['strict', 'min-delta', 'noise-aware'] as const;

/** The row classes `loop log --status` filters by. */
export const LOG_STATUSES = ['baseline', 'keep', 'discard', 'crash', 'halted'] as const;
