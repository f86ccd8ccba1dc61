import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ConfigError } from '../contracts/errors.js';
import type { SandboxMode } from './sandbox.js';

/** Whether bwrap works on this machine, and why not. */
export interface BwrapStatus {
  /** True when `bwrap` is on the PATH and a trial sandbox ran. */
  readonly available: boolean;
  /** Absolute path of the binary, when found. */
  readonly path?: string;
  /** Why it is not available. */
  readonly reason?: string;
}

const statusByPath = new Map<string, BwrapStatus>();

function findOnPath(name: string, pathVar: string): string | undefined {
  for (const dir of pathVar.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return undefined;
}

/**
 * Finds bwrap and runs one trial sandbox (`bwrap --ro-bind / / --unshare-pid … /bin/true`): an
 * installed bwrap can still fail where unprivileged user namespaces are off. Cached for the
 * process per `PATH` value (one synchronous trial of a few ms).
 *
 * @param pathVar where to look for `bwrap`. @default process.env.PATH
 */
export function bwrapStatus(pathVar: string = process.env.PATH ?? '/usr/bin:/bin'): BwrapStatus {
  const cached = statusByPath.get(pathVar);
  if (cached) return cached;
  const status = probeBwrap(pathVar);
  statusByPath.set(pathVar, status);
  return status;
}

function probeBwrap(pathVar: string): BwrapStatus {
  if (process.platform !== 'linux')
    return { available: false, reason: `bwrap is Linux-only (this is ${process.platform})` };
  const path = findOnPath('bwrap', pathVar);
  if (!path) return { available: false, reason: 'bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)' };
  const trial = spawnSync(
    path,
    [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--unshare-pid',
      '--unshare-net',
      '--die-with-parent',
      '/bin/true',
    ],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (trial.status === 0) return { available: true, path };
  const why = (trial.stderr || trial.error?.message || `exit ${trial.status}`).trim().split('\n')[0];
  return { available: false, path, reason: `bwrap is installed but cannot create a sandbox here: ${why}` };
}

/** The reasons each warning callback has already been told, so one logger hears each once per process. */
const warned = new WeakMap<(message: string) => void, Set<string>>();

/**
 * Resolves a factory's sandbox mode to what runs: `bwrap` or `none`. `auto` without a working
 * bwrap is `none` and calls `warn` with the reason and what to do, once per `warn` function and
 * reason in this process (the CLI passes one logger to the agent, the harness and the checks).
 *
 * @param status what is known about bwrap here. @default {@link bwrapStatus}()
 * @throws {ConfigError} `CONFIG_INVALID` (field `sandbox`) when `bwrap` is asked for and does not work here.
 */
export function resolveSandboxMode(
  mode: SandboxMode,
  where: string,
  warn?: (message: string) => void,
  status?: BwrapStatus,
): 'bwrap' | 'none' {
  if (mode === 'none') return 'none';
  const s = status ?? bwrapStatus();
  if (s.available) return 'bwrap';
  if (mode === 'bwrap')
    throw new ConfigError(where, [
      {
        path: 'sandbox',
        message: `sandbox "bwrap" was asked for, but ${s.reason}; install it or set sandbox to "auto" or "none"`,
      },
    ]);
  if (warn) {
    const seen = warned.get(warn) ?? new Set<string>();
    warned.set(warn, seen);
    if (!seen.has(s.reason ?? '')) {
      seen.add(s.reason ?? '');
      warn(
        `[loop] no sandbox: ${s.reason}. Commands run unconfined (the loop's ` +
          `change detection still applies); install bubblewrap, or set sandbox: ` +
          `none to silence this.`,
      );
    }
  }
  return 'none';
}
