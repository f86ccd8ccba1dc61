import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** The name prefix of every per-run cgroup directory. */
export const RUN_CGROUP_PREFIX = 'loop-';

let base: string | null | undefined;

/**
 * The mount point of the cgroup v2 hierarchy (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified` on a hybrid system), or
 * null.
 */
function v2MountPoint(): string | null {
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right || !right.startsWith('cgroup2 ')) continue;
    const mountPoint = left.split(' ')[4];
    if (mountPoint) return mountPoint.replace(/\\040/g, ' ');
  }
  return null;
}

/**
 * The cgroup v2 directory this process lives in, when this process may create child cgroups in it
 * and move a process into one (probed once: a cgroup is created, a shell moves itself in, the
 * cgroup is removed; root usually may, a user session under systemd usually may not), else null. Per-run cgroups are
 * created under it, so a loop run inside another
 * loop's command is nested in that command's cgroup and killed with it. Cached for the process.
 * `LOOP_CGROUP=off` in the environment turns per-run cgroups off (the run-token scan then finds
 * the processes), e.g. where a container runtime manages the cgroup tree itself.
 */
export function runCgroupBase(): string | null {
  if (process.env.LOOP_CGROUP === 'off') return null;
  if (base !== undefined) return base;
  base = null;
  if (process.platform !== 'linux') return base;
  try {
    const mount = v2MountPoint();
    const rel = /^0::(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
    if (!mount || rel === undefined) return base;
    const dir = join(mount, rel);
    const probe = join(dir, `${RUN_CGROUP_PREFIX}probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    mkdirSync(probe);
    // A process must be able to move itself in (controllers enabled in a delegated subtree can refuse it).
    const moved =
      existsSync(join(probe, 'cgroup.procs')) &&
      spawnSync('/bin/sh', ['-c', 'echo $$ > "$0"', join(probe, 'cgroup.procs')], { stdio: 'ignore', timeout: 5000 })
        .status === 0;
    // the exited probe leaves the cgroup within moments
    for (let i = 0; i < 100 && !removeCgroup(probe); i++) spawnSync('/bin/sh', ['-c', ':'], { stdio: 'ignore' });
    if (moved) {
      base = dir;
      sweepStaleCgroups(dir);
    }
  } catch {
    // not writable, no cgroup v2, no /proc: the run-token scan is the fallback
  }
  return base;
}

/** How long an empty `loop-*` cgroup must have existed before a new process removes it as stale, in ms. */
const STALE_MS = 60_000;

/**
 * Removes the empty `loop-*` cgroups a killed loop left under `dir` (its `exit` hook cannot wait for
 * the kernel to empty them; a SIGKILL runs no hook). Only cgroups older than a minute are touched:
 * a live run's cgroup is populated from the moment its command starts.
 */
function sweepStaleCgroups(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith(RUN_CGROUP_PREFIX)) continue;
    const path = join(dir, entry.name);
    try {
      if (Date.now() - statSync(path).mtimeMs < STALE_MS || cgroupPids(path).length > 0) continue;
    } catch {
      continue;
    }
    removeCgroup(path);
  }
}

/** Creates the cgroup of one run, named after its token; null when cgroups are not usable here. */
export function createRunCgroup(token: string): string | null {
  const parent = runCgroupBase();
  if (!parent) return null;
  const dir = join(parent, `${RUN_CGROUP_PREFIX}${token}`);
  try {
    mkdirSync(dir);
    return dir;
  } catch {
    return null;
  }
}

let warming: Promise<boolean> | undefined;

/**
 * Warms the kernel for the next run's cgroup migration (issue 31), off the main thread: writes this
 * process's own pid to its own cgroup's `cgroup.procs` (a migration that moves nothing). Without
 * `favordynmods` every migration first waits for an RCU grace period unless one started moments
 * before (about 10 ms here, docs/safety.md); the command's first shell then enters its cgroup
 * without waiting if this started a few ms earlier. Nothing is written when cgroups are not used
 * here (or `LOOP_CGROUP=off`); a failure is ignored (the run pays the wait, as before).
 *
 * @returns true when the write succeeded, false when there is nothing to warm or it failed; a call
 *   while one is in flight shares it.
 */
export function warmRunCgroups(): Promise<boolean> {
  const parent = runCgroupBase();
  if (!parent) return Promise.resolve(false);
  warming ??= writeFile(join(parent, 'cgroup.procs'), String(process.pid))
    .then(
      () => true,
      () => false,
    )
    .finally(() => (warming = undefined));
  return warming;
}

/** True when `dir` looks like a cgroup this module made (a `loop-<token>` directory with `cgroup.procs`). */
export function isRunCgroup(dir: string): boolean {
  return basename(dir).startsWith(RUN_CGROUP_PREFIX) && existsSync(join(dir, 'cgroup.procs'));
}

/** Every pid in the cgroup and its descendants. */
export function cgroupPids(dir: string): number[] {
  const pids: number[] = [];
  try {
    for (const p of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n')) if (p) pids.push(Number(p));
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) pids.push(...cgroupPids(join(dir, entry.name)));
  } catch {
    // gone
  }
  return pids;
}

/**
 * Signals every process in the cgroup (and its descendant cgroups). SIGKILL uses `cgroup.kill`
 * (Linux 5.14+: atomic, forks in flight included) where it exists, else each listed pid.
 */
export function signalCgroup(dir: string, signal: NodeJS.Signals): void {
  if (signal === 'SIGKILL' && existsSync(join(dir, 'cgroup.kill'))) {
    try {
      writeFileSync(join(dir, 'cgroup.kill'), '1');
      return;
    } catch {
      // fall through to the pid list
    }
  }
  for (const pid of cgroupPids(dir)) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Removes the cgroup and its descendant cgroups (they must be empty); false when one is still populated. */
export function removeCgroup(dir: string): boolean {
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) removeCgroup(join(dir, entry.name));
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Kills everything in the cgroup with SIGKILL, waits (polling after 1, 2, 5, then every 10 ms, up
 * to `timeoutMs`) for the kernel to empty it, then removes it.
 *
 * @returns the number of processes that were still in it.
 */
export async function endCgroup(dir: string, timeoutMs = 2000): Promise<number> {
  const found = cgroupPids(dir).length;
  if (found > 0) signalCgroup(dir, 'SIGKILL');
  const deadline = performance.now() + timeoutMs;
  for (let attempt = 0; !removeCgroup(dir) && performance.now() < deadline; attempt++) {
    if (cgroupPids(dir).length > 0) signalCgroup(dir, 'SIGKILL');
    await new Promise((r) => setTimeout(r, [1, 2, 5][attempt] ?? 10));
  }
  return found;
}
