import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliIo, RunCommandLine } from './cli-io.js';
import { EXIT_CODES } from './cli-constants.js';
import { findConfigFile, loadConfig } from './load-config.js';
import { detectPreset } from './presets/detect.js';
import { readCliState } from './run-tag.js';
import { UsageError } from './usage-error.js';

/**
 * The config file in `dir` (loop.config.yaml, ...); else the one its last run was started with, as
 * `.loop/cli.json` names it (`--config` elsewhere, the ML demo's `.loop/loop.config.json`), when it
 * still exists; else `undefined`.
 */
function configIn(dir: string): string | undefined {
  try {
    return findConfigFile(undefined, dir);
  } catch {
    const { config } = readCliState(dir);
    return config !== undefined && existsSync(config) ? config : undefined;
  }
}

/**
 * `loop status [dir|config]`: where a run stands, for the preset of the config named (a folder is
 * an auto-iterate workspace); prints text or JSON and returns the exit code. A collie config is
 * handed to `loop collie status` through `runCommandLine`.
 *
 * @throws {LoopError} `CONFIG_INVALID` for an invalid config file.
 */
export async function runStatusCommand(
  io: CliIo,
  target: string,
  opts: { readonly rows: string; readonly json: boolean },
  runCommandLine: RunCommandLine,
): Promise<number> {
  const path = resolve(io.cwd, target);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new UsageError(`loop status: ${path} does not exist; name a workspace folder or its config file`);
  // A folder holding another preset's config (loop init --preset autoresearch) is that config's run.
  const config = stat.isFile() ? path : configIn(path);
  if (config !== path && config !== undefined && detectPreset(config) !== 'auto-iterate')
    return runStatusCommand(io, config, opts, runCommandLine);
  const isFile = stat.isFile();
  const preset = isFile ? detectPreset(path) : 'auto-iterate';
  if (preset === 'collie') return runCommandLine(['collie', 'status', path, ...(opts.json ? ['--json'] : [])]);
  if (preset === 'autotune') {
    const { formatAutotuneStatus, loadAutotuneConfig, readAutotuneStatus } =
      await import('./presets/autotune-command.js');
    const tune = await readAutotuneStatus(await loadAutotuneConfig(path));
    io.stdout.write(`${opts.json ? JSON.stringify(tune, null, 2) : formatAutotuneStatus(tune)}\n`);
    return EXIT_CODES.STOPPED;
  }
  if (preset === 'autoresearch') {
    const [{ formatPassStatus, readPassStatus }, { loadAutoresearchConfig }] = await Promise.all([
      import('./presets/autoresearch-command.js'),
      import('./presets/load-autoresearch-config.js'),
    ]);
    const pass = await readPassStatus(await loadAutoresearchConfig(path));
    io.stdout.write(
      `${opts.json ? JSON.stringify(pass, null, 2) : formatPassStatus(pass, Number.parseInt(opts.rows, 10) || 5)}\n`,
    );
    return EXIT_CODES.STOPPED;
  }
  const loaded = isFile
    ? await loadConfig(path)
    : config !== undefined
      ? await loadConfig(config).catch(() => undefined)
      : undefined;
  const dir = isFile ? loaded!.dir : path;
  const { formatStatus, readStatus } = await import('./workspace-status.js');
  const status = await readStatus(dir);
  const { formatWorkersStatus, readWorkersStatus } = await import('./workers-status.js');
  // parallel.workers: the workers seen (issue 15)
  const workers = await readWorkersStatus(isFile ? path : undefined, dir);
  // The sealed holdout's scores: for the user only, never in readStatus (the MCP server's reply; issue 33).
  const { formatHoldoutStatus, readHoldoutStatus } = await import('./holdout-status.js');
  const holdout = await readHoldoutStatus(dir, loaded?.config.holdout);
  const json = { ...status, ...(workers ? { workers } : {}), ...(holdout ? { holdout } : {}) };
  io.stdout.write(
    `${opts.json ? JSON.stringify(json, null, 2) : formatStatus(status, Number.parseInt(opts.rows, 10) || 5)}\n`,
  );
  if (workers && !opts.json) io.stdout.write(`${formatWorkersStatus(workers)}\n`);
  if (holdout && !opts.json) io.stdout.write(`${formatHoldoutStatus(holdout, Number.parseInt(opts.rows, 10) || 5)}\n`);
  return EXIT_CODES.STOPPED;
}
