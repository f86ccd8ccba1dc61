import { mkdir, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { LoopError } from '../contracts/errors.js';
import { processStartTicks, processState } from '../process/process-state.js';
import { writeJsonAtomic } from './state-file.js';

/** A held workspace lock. */
export interface WorkspaceLock {
  /** The lock's path. */
  readonly path: string;
  /** Releases the lock; safe to call twice. */
  readonly release: () => Promise<void>;
}

/** Options of {@link acquireLock}. */
export interface AcquireLockOptions {
  /** The file the lock protects (it need not exist; a directory `<path>.lock` is the lock). */
  path: string;
  /** A lock not refreshed for this long is stale and may be taken over, in ms. @default 30000 */
  staleMs?: number;
  /** Called if the lock is lost while held (for example its directory was deleted). */
  onCompromised?: (error: Error) => void;
  /** What holds the lock, for the LOCK_HELD message. @default 'another loop is already running in this workspace' */
  holder?: string;
}

/**
 * True when the owner file names a process on this host that can no longer hold the lock: gone,
 * a zombie (exited, not yet reaped: `kill(pid, 0)` still succeeds on it), or a pid the kernel has
 * since reused for another process (its start time differs from the recorded `startTicks`).
 */
async function ownerIsDead(ownerPath: string): Promise<boolean> {
  let owner: { pid?: unknown; hostname?: unknown; startTicks?: unknown };
  try {
    owner = JSON.parse(await readFile(ownerPath, 'utf8')) as typeof owner;
  } catch {
    return false; // no owner file (being written, or an older lock): cannot tell, treat as live
  }
  if (owner.hostname !== hostname() || typeof owner.pid !== 'number' || owner.pid === process.pid) return false;
  const state = processState(owner.pid);
  if (state === 'gone' || state === 'zombie') return true;
  if (state !== 'running' || typeof owner.startTicks !== 'number') return false;
  const startTicks = processStartTicks(owner.pid);
  return startTicks !== undefined && startTicks !== owner.startTicks;
}

/**
 * Takes an exclusive lock (proper-lockfile: an atomic mkdir refreshed while held) so two loops
 * never drive one workspace. The holder is recorded in `<path>.lock.owner.json`
 * (`{ pid, hostname, startTicks }`, written atomically); a lock whose owner process on this host
 * is gone (killed with SIGKILL, say), a zombie, or replaced by a reused pid is taken over at once;
 * any other abandoned lock goes stale after `staleMs`.
 *
 * @throws {LoopError} `LOCK_HELD` naming the lock path when another live process holds it.
 */
export async function acquireLock(options: AcquireLockOptions): Promise<WorkspaceLock> {
  const { path, staleMs = 30_000 } = options;
  await mkdir(dirname(path), { recursive: true });
  const lockPath = `${path}.lock`;
  const ownerPath = `${lockPath}.owner.json`;
  const take = () =>
    lockfile.lock(path, {
      realpath: false,
      stale: staleMs,
      update: Math.max(1000, Math.floor(staleMs / 3)),
      lockfilePath: lockPath,
      onCompromised: options.onCompromised ?? (() => {}),
    });
  let release: () => Promise<void>;
  try {
    try {
      release = await take();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED' || !(await ownerIsDead(ownerPath))) throw error;
      await rm(lockPath, { recursive: true, force: true });
      await rm(ownerPath, { force: true });
      release = await take();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new LoopError(
        'LOCK_HELD',
        `[loop] [lock] ${options.holder ?? 'another loop is already running in this workspace'} ` +
          `(lock ${lockPath}); wait for it to stop. A lock whose owner process on ` +
          `this host has died is taken over at once; any other goes stale by itself ` +
          `within ${Math.round(staleMs / 1000)} s, or remove it with: rm ` +
          `-r ${lockPath}`,
        { cause: error, details: { path: lockPath } },
      );
    }
    throw error;
  }
  await writeJsonAtomic(ownerPath, {
    pid: process.pid,
    hostname: hostname(),
    startTicks: processStartTicks(process.pid),
  }).catch(() => {});
  let released = false;
  return {
    path: lockPath,
    release: async () => {
      if (released) return;
      released = true;
      await rm(ownerPath, { force: true }).catch(() => {});
      await release().catch(() => {});
    },
  };
}

/**
 * True when a live process holds the lock on `path`: a stale lock, or one whose recorded owner
 * process on this host is gone (SIGKILLed), a zombie or a reused pid, counts as not held.
 */
export async function isLocked(path: string, staleMs = 30_000): Promise<boolean> {
  const held = await lockfile.check(path, { realpath: false, stale: staleMs, lockfilePath: `${path}.lock` });
  return held && !(await ownerIsDead(`${path}.lock.owner.json`));
}
