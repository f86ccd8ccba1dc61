import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../contracts/errors.js';
import { resolveSandboxMode } from './bwrap-status.js';
import { planSandboxBinds, sandboxBindArgs, type SandboxBinds } from './sandbox-folders.js';

/**
 * Where a command the loop runs on a user's behalf is confined:
 * - `bwrap`: bubblewrap (Linux; Debian's `bubblewrap` package). The whole system is mounted
 *   read-only, only the writable paths (the workspace, or an agent's targets) are writable, `/tmp`
 *   is a private tmpfs, the command gets its own pid namespace (everything in it dies with it) and,
 *   unless the network is allowed, its own empty network namespace.
 * - `none`: no sandbox; the loop's detection (artifact diff, tamper fingerprint) still holds.
 * - `auto`: `bwrap` when it is installed and works here, else `none` with a one-time warning
 *   through the factory's `onSandboxWarning`.
 */
export type SandboxMode = 'auto' | 'bwrap' | 'none';

/** The sandbox options every command-running factory accepts (the harness, the agent proposer, the command guard). */
export interface SandboxOptions {
  /** Where the command runs; see {@link SandboxMode}. The default depends on the factory. */
  sandbox?: SandboxMode;
  /**
   * Extra absolute paths that stay writable inside the sandbox, e.g. an agent CLI's state folder
   * (`~/.claude`) or a cache outside the workspace. Missing paths are skipped. @default []
   */
  writable?: string[];
  /** Allow network access inside the sandbox. The default depends on the factory. */
  network?: boolean;
  /** Receives the one-time warning when `auto` finds no working bwrap (the library never writes to the console). */
  onSandboxWarning?: (message: string) => void;
  /**
   * Absolute paths masked inside the sandbox (issue 33: a sealed holdout's files and its state
   * folder): a directory shows as an empty tmpfs, a file as an empty read-only file, a symlink is
   * masked at its target. Applied after every bind, so a writable parent does not uncover one.
   * Missing paths are skipped. Under `none` nothing is masked. @default []
   */
  hidden?: string[];
  /**
   * Extra absolute paths the command reads outside its workspace, e.g. a sealed holdout's files in
   * a sibling folder: `/` is read-only inside the sandbox already, but its `/tmp` is private, so a
   * path under the host's `/tmp` has its top-level `/tmp` folder bound read-only. Missing paths are
   * skipped. @default []
   */
  readable?: string[];
}

/** zod fields of {@link SandboxOptions}, spread into each factory's schema. */
export const sandboxOptionsFields = {
  sandbox: z.enum(['auto', 'bwrap', 'none']).optional(),
  writable: z.array(z.string().refine((p) => isAbsolute(p), 'writable paths must be absolute')).default([]),
  network: z.boolean().optional(),
  onSandboxWarning: z
    .custom<(message: string) => void>(
      (f) => f === undefined || typeof f === 'function',
      'onSandboxWarning must be a function',
    )
    .optional(),
  hidden: z.array(z.string().refine((p) => isAbsolute(p), 'hidden paths must be absolute')).default([]),
  readable: z.array(z.string().refine((p) => isAbsolute(p), 'readable paths must be absolute')).default([]),
};

/** What {@link runInGroup} needs to confine one command with bwrap. */
export interface SandboxSpec {
  /**
   * The command's own absolute writable paths (the workspace, an agent's targets): a directory is
   * bound read-write; a file, or a missing path, through its folder with the folder's other
   * entries read-only (see `SandboxFolder`: `sed -i` and editors' backups work, what the command
   * leaves beside the file is for the caller to sweep). A path that is a symlink is never bound
   * (binding would make its target, possibly outside the workspace, writable).
   */
  readonly writable: readonly string[];
  /** Entries of a target's folder past which the file alone is bound. @default 256 (`DEFAULT_MAX_FOLDER_ENTRIES`) */
  readonly maxFolderEntries?: number;
  /**
   * The binds, when the caller planned them with `planSandboxBinds` (to sweep the folders with
   * `sweepSandboxFolders` after the command). @default planned from `writable`, `extraWritable` and `maxFolderEntries`
   */
  readonly binds?: SandboxBinds;
  /** The user's extra writable paths (the `writable` option): symlinks are followed. @default [] */
  readonly extraWritable?: readonly string[];
  /** Allow the network. @default false */
  readonly network?: boolean;
  /** Absolute paths masked inside the sandbox (see `SandboxOptions.hidden` and {@link sandboxMaskArgs}). @default [] */
  readonly hidden?: readonly string[];
  /** Absolute paths the command reads outside its workspace (see `SandboxOptions.readable`). @default [] */
  readonly readable?: readonly string[];
}

const isInside = (path: string, dir: string): boolean => {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

/**
 * The bwrap argv prefix (ending with `--`) that confines a command started in `cwd` to `spec`:
 * `/` read-only, a fresh `/dev` and `/proc`, a private tmpfs on `/tmp` (`TMPDIR=/tmp`), the
 * writable paths bound as {@link planSandboxBinds} plans them (a target file through its folder,
 * the folder's other entries read-only), its own pid namespace, `--die-with-parent`, and
 * `--unshare-net` unless `spec.network`. When `cwd`, a writable or a readable path lies inside `/tmp`,
 * its top-level `/tmp` folder is re-bound read-only first: the workspace stays visible, and a write
 * next to it fails instead of landing unseen in the private tmpfs.
 */
export function bwrapArgv(bwrap: string, cwd: string, spec: SandboxSpec): string[] {
  const argv = [
    bwrap,
    '--die-with-parent',
    '--unshare-pid',
    ...(spec.network ? [] : ['--unshare-net']),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
  ];
  const plan = spec.binds ?? planSandboxBinds(spec.writable, spec.extraWritable, spec.maxFolderEntries);
  const inside = existsSync(cwd) ? realpathSync(cwd) : cwd;
  const roTops = new Set<string>();
  const readable = (spec.readable ?? []).filter((p) => existsSync(p)).map((p) => realpathSync(p));
  for (const w of [inside, ...linkedFrom(inside), ...plan.paths, ...plan.folders.map((f) => f.dir), ...readable]) {
    if (!isInside(w, '/tmp')) continue;
    const top = join('/tmp', relative('/tmp', w).split(sep)[0] ?? '');
    if (roTops.has(top)) continue;
    roTops.add(top);
    argv.push('--ro-bind', top, top);
  }
  argv.push(...sandboxBindArgs(plan));
  argv.push(...sandboxMaskArgs(spec.hidden ?? []));
  argv.push('--setenv', 'TMPDIR', '/tmp', '--chdir', inside, '--');
  return argv;
}

/**
 * The real targets of the symlinks directly in `dir` (a workspace's `node_modules` linked to a
 * clone elsewhere): under the private `/tmp` they stay readable when they lie in the host's `/tmp`.
 */
function linkedFrom(dir: string): string[] {
  const out: string[] = [];
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isSymbolicLink()) continue;
      try {
        out.push(realpathSync(join(dir, entry.name)));
      } catch {
        // a dangling link
      }
    }
  } catch {
    // cwd not readable: nothing linked
  }
  return out;
}

/**
 * The bwrap arguments that mask `hidden` paths (issue 33): an existing directory becomes an empty
 * tmpfs (`--tmpfs`), any other existing entry is covered by `/dev/null` read-only (`--ro-bind`).
 * The real path is masked (symlinks resolved), so every name that leads to it (a symlink, `../`,
 * `/proc/self/root/...`) reaches the mask. Missing paths give no argument; a path inside an
 * already masked folder is skipped.
 */
export function sandboxMaskArgs(hidden: readonly string[]): string[] {
  const targets = new Map<string, boolean>();
  for (const h of hidden) {
    if (!existsSync(h)) continue;
    // The real path: every name of it (a symlink, `../`, /proc/<pid>/root) leads to the same mount.
    const real = realpathSync(h);
    targets.set(real, statSync(real).isDirectory());
  }
  const sorted = [...targets].sort((a, b) => a[0].length - b[0].length);
  const masked: string[] = [];
  const args: string[] = [];
  for (const [path, isDir] of sorted) {
    if (masked.some((m) => path === m || isInside(path, m))) continue;
    if (isDir) masked.push(path);
    args.push(...(isDir ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path]));
  }
  return args;
}

/** A factory's resolved sandbox: the spec for one command, or undefined when it runs unconfined. */
export type SandboxPlan = (writable: readonly string[]) => SandboxSpec | undefined;

/**
 * Resolves a factory's parsed {@link SandboxOptions} once (see {@link resolveSandboxMode}) and
 * returns the plan that turns a command's own writable paths into a {@link SandboxSpec} (the
 * `writable` option's paths added), or into undefined under `none`.
 *
 * @throws {ConfigError} `CONFIG_INVALID` when `bwrap` is asked for and does not work here.
 */
export function planSandbox(
  options: {
    sandbox?: SandboxMode | undefined;
    writable: readonly string[];
    network?: boolean | undefined;
    onSandboxWarning?: ((message: string) => void) | undefined;
    hidden?: readonly string[] | undefined;
    readable?: readonly string[] | undefined;
  },
  where: string,
  defaults: { mode: SandboxMode; network: boolean },
): SandboxPlan {
  const mode = resolveSandboxMode(options.sandbox ?? defaults.mode, where, options.onSandboxWarning);
  if (mode === 'none') return () => undefined;
  const network = options.network ?? defaults.network;
  const hidden = options.hidden ?? [];
  const readable = options.readable ?? [];
  return (writable) => ({
    writable,
    extraWritable: options.writable,
    network,
    ...(hidden.length > 0 ? { hidden } : {}),
    ...(readable.length > 0 ? { readable } : {}),
  });
}
