import { dirname, isAbsolute, resolve } from 'node:path';
import {
  createGitCommitter,
  initAutotune,
  noSyncCheck,
  readLoopStateFile,
  readScoreboard,
  resolveAutotunePaths,
  runControllerIteration,
  type IterationResult,
} from '@loop/autotune';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { loadConfigFileOf } from '../load-config.js';
import { applyRunFlags } from '../apply-run-flags.js';
import { AUTOTUNE_CONFIG_KIND, type AutotunePresetConfig } from './autotune-config.js';
import { createCommandRoundWorker, createCommandSyncCheck } from './autotune-worker.js';

/** A loaded `preset: autotune` config with absolute paths. */
export interface LoadedAutotuneConfig {
  /** The validated config. */
  readonly config: AutotunePresetConfig;
  /** The config file (absolute). */
  readonly file: string;
  /** The app repository (absolute). */
  readonly dir: string;
  /** The artifact workspace (absolute), when configured. */
  readonly artifactDir: string | undefined;
}

/**
 * Loads and validates a `preset: autotune` config file.
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` naming the file, line and field.
 */
export async function loadAutotuneConfig(file: string): Promise<LoadedAutotuneConfig> {
  const config = await loadConfigFileOf(AUTOTUNE_CONFIG_KIND, file);
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(dirname(file), p));
  return {
    config,
    file,
    dir: abs(config.dir),
    artifactDir: config.artifactDir === undefined ? undefined : abs(config.artifactDir),
  };
}

/**
 * `loop run` / `loop resume` of an autotune config: creates the control files when absent
 * (`initAutotune`), then runs `runControllerIteration` until the loop is complete or
 * `maxIterations` rounds ran, one report line per round. Every round is journalled by the
 * controller, so a killed run continues where it stopped. Exit 0 when complete or the bound was
 * reached, or after Ctrl-C, which stops after the round in flight (a clean stop: every step journalled).
 */
export async function runAutotuneCommand(
  io: CliIo,
  file: string,
  flags: Record<string, unknown> = {},
): Promise<number> {
  const read = await loadAutotuneConfig(file);
  const { dir, artifactDir } = read;
  const c = applyRunFlags(AUTOTUNE_CONFIG_KIND, read.config, flags, file);
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
    io.stdout.write('interrupt: stopping after the round in flight (its steps are journalled)\n');
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  try {
    await initAutotune({ dir, ...(artifactDir ? { artifactDir } : {}) });
    io.stdout.write(
      `config    ${file}\napp       ${dir}${artifactDir ? `  artifacts ${artifactDir}` : ''}  (autotune)\n`,
    );
    const timeoutMs = c.worker.timeoutS * 1000;
    let last: IterationResult | undefined;
    for (let i = 0; i < c.maxIterations && !interrupted; i += 1) {
      last = await runControllerIteration({
        dir,
        ...(artifactDir ? { artifactDir } : {}),
        worker: createCommandRoundWorker({
          improveCommand: c.worker.improveCommand,
          evaluateCommand: c.worker.evaluateCommand,
          timeoutMs,
        }),
        syncCheck: c.syncCommand ? createCommandSyncCheck(c.syncCommand, timeoutMs) : noSyncCheck(),
        committer: createGitCommitter({ dir, ...(artifactDir ? { artifactDir } : {}), author: c.author }),
        maxFailedAttempts: c.maxFailedAttempts,
      });
      io.stdout.write(`${last.round === null ? '' : `round ${last.round}: `}${last.report}\n`);
      if (last.outcome !== 'continue') break;
    }
    if (last)
      io.stdout.write(`status: ${last.state.status}${last.state.stop_reason ? ` (${last.state.stop_reason})` : ''}\n`);
    return EXIT_CODES.STOPPED;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
}

/** `loop status` of an autotune config: loop_state.json and the scoreboard (takes no lock). */
export async function readAutotuneStatus(
  loaded: LoadedAutotuneConfig,
): Promise<{ preset: 'autotune'; dir: string; state: unknown; scoreboard: unknown }> {
  const paths = resolveAutotunePaths(loaded.dir, loaded.artifactDir ?? loaded.dir);
  const state = await readLoopStateFile(paths.loopState).catch(() => undefined);
  const scoreboard = await readScoreboard(paths.scoreboard).catch(() => undefined);
  return { preset: 'autotune', dir: loaded.dir, state: state ?? null, scoreboard: scoreboard ?? null };
}

/** The text form of {@link readAutotuneStatus}. */
export function formatAutotuneStatus(s: Awaited<ReturnType<typeof readAutotuneStatus>>): string {
  const st = s.state as {
    status?: string;
    mode?: string;
    stop_reason?: string | null;
    last_round?: { round?: number; summary?: string } | null;
  } | null;
  if (!st) return `app       ${s.dir}  (autotune)\nno run here yet (no loop_state.json); start one with "loop run"`;
  return [
    `app       ${s.dir}  (autotune)`,
    `status    ${st.status ?? '-'}${st.stop_reason ? ` (${st.stop_reason})` : ''}  mode ${st.mode ?? '-'}`,
    `round     ${st.last_round?.round ?? 0}${st.last_round?.summary ? `: ${st.last_round.summary}` : ''}`,
  ].join('\n');
}
