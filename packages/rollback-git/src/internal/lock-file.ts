import nodeFs from 'node:fs';
import type { GitFsFileHandle, GitFsPromises, GitFsStats } from '../git-fs.js';
import { foreignCode, rollbackError } from './errors.js';

/** How a {@link writeThroughLock} waits for a lock another process holds. */
export interface LockWait {
  /** Give up after this many milliseconds. @default 2000 */
  readonly timeoutMs: number;
  /** Resolves after `ms` milliseconds (injected so tests need not sleep). @default setTimeout */
  readonly sleep: (ms: number) => Promise<void>;
}

/** The default wait: 2 s, polling with a growing delay (5 ms to 100 ms). */
export const DEFAULT_LOCK_WAIT: LockWait = {
  timeoutMs: 2000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** `<path>.lock`, the lock file git itself takes before it replaces `path`. */
export const lockPathOf = (path: string): string => `${path}.lock`;

const parentDir = (path: string): string => path.slice(0, Math.max(path.lastIndexOf('/'), 1));

/**
 * fsyncs directory `dir` so a rename in it survives a power loss (FACTS.md "Atomic replace").
 * Best effort: a file system that cannot open or sync a directory (memfs, some network mounts)
 * is skipped silently.
 */
export async function syncDir(fs: Pick<GitFsPromises, 'open'>, dir: string): Promise<void> {
  if (fs.open === undefined) return;
  let handle: GitFsFileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync?.();
  } catch {
    // EISDIR / EINVAL / EPERM on platforms without directory fsync: nothing more can be done.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Creates `<path>.lock` exclusively (`O_CREAT|O_EXCL`), waiting up to `wait.timeoutMs` while
 * another process (the git CLI) holds it. Returns the open handle (or `undefined` on a file system
 * without `open`, where the lock was created empty with `writeFile` flag `wx`).
 *
 * @throws {LoopError} `LOCK_HELD` naming the lock file when it stays taken; other errors
 *   (ENOENT for a missing parent directory, ENOSPC) unchanged.
 */
export async function takeLock(
  fs: Pick<GitFsPromises, 'open' | 'writeFile'>,
  path: string,
  mode: number,
  wait: LockWait,
): Promise<GitFsFileHandle | undefined> {
  const lock = lockPathOf(path);
  let waited = 0;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      if (fs.open !== undefined) return await fs.open(lock, 'wx', mode);
      await fs.writeFile(lock, new Uint8Array(0), { mode, flag: 'wx' });
      return undefined;
    } catch (error) {
      if (foreignCode(error) !== 'EEXIST') throw error;
      if (waited >= wait.timeoutMs) {
        throw rollbackError(
          'LOCK_HELD',
          `${lock} exists: another git process is writing this repository (the git ` +
            `CLI holds it while it runs); wait for it to finish and retry. If no git ` +
            `process is running, a killed one left it: remove the file (loop resume ` +
            `does this for locks no live process holds)`,
          { details: { lock } },
        );
      }
      await wait.sleep(delay);
      waited += delay;
    }
  }
}

/** How {@link writeThroughLock} writes. */
export interface LockedWriteOptions {
  /** Mode of a new file. @default 0o644 */
  readonly mode?: number;
  /** How to wait for a lock another process holds. @default DEFAULT_LOCK_WAIT */
  readonly wait?: LockWait;
  /**
   * fsync the lock file before the rename and the directory after it, so the new file survives a
   * power loss. A kill never needs it (the rename is atomic either way). @default true
   */
  readonly sync?: boolean;
  /**
   * Return the `lstat` of `path` after the rename when it is still the file this call wrote (the
   * same inode as the lock file held open), so a caller can recognise its own write later by the
   * file's stat key; `undefined` when another writer replaced it in between. @default false
   */
  readonly identify?: boolean;
}

/**
 * Objects, refs and index files up to this size (bytes) are written with the synchronous calls when
 * the fs is `node:fs` itself: the same calls in the same order, but one blocking call each instead of
 * a thread-pool round trip (0.1-1 ms each under load): about 50 us for the few small objects one
 * iteration writes (issue 13), and for its three ref and two small index writes, nine calls each
 * through the lock (issue 31).
 */
const SYNC_WRITE_LIMIT = 256 * 1024;

/** The calls {@link writeThroughLock} and {@link writeByRename} make. */
type SmallWriteOps = Pick<GitFsPromises, 'open' | 'writeFile' | 'lstat' | 'mkdir' | 'rename' | 'unlink'>;

/** `node:fs`'s synchronous calls behind that promise API. */
const SYNC_OPS: SmallWriteOps = {
  open: async (path, flags, mode) => {
    const fd = nodeFs.openSync(path, flags, mode);
    return {
      writeFile: async (data: Uint8Array) => {
        for (let at = 0; at < data.byteLength;) at += nodeFs.writeSync(fd, data, at, data.byteLength - at);
      },
      sync: async () => nodeFs.fsyncSync(fd),
      close: async () => nodeFs.closeSync(fd),
    };
  },
  writeFile: async (path, data, options) => nodeFs.writeFileSync(path, data, options),
  lstat: async (path) => nodeFs.lstatSync(path),
  mkdir: async (path, options) => nodeFs.mkdirSync(path, options),
  rename: async (from, to) => nodeFs.renameSync(from, to),
  unlink: async (path) => nodeFs.unlinkSync(path),
};

/** The synchronous calls for a small write on `node:fs` itself, else `fs`. */
const opsFor = (fs: GitFsPromises, data: Uint8Array): SmallWriteOps =>
  (fs as unknown) === nodeFs.promises && data.byteLength <= SYNC_WRITE_LIMIT ? SYNC_OPS : fs;

/**
 * Replaces `path` the way git does: `<path>.lock` is created exclusively, written and (unless
 * `sync: false`) fsynced, then renamed over `path` and the directory fsynced. A kill at any
 * instant leaves the old file or the new one (plus, at worst, a stale `.lock` that resume
 * removes), never a torn one. On a failure (ENOSPC) the lock is removed and the old file is intact.
 *
 * @returns with `identify`, the new file's `lstat` (or `undefined`, see {@link LockedWriteOptions}).
 * @throws {LoopError} `LOCK_HELD` (see {@link takeLock}); the file-system error otherwise.
 */
export async function writeThroughLock(
  raw: GitFsPromises,
  path: string,
  data: Uint8Array,
  options: LockedWriteOptions = {},
): Promise<GitFsStats | undefined> {
  const fs = opsFor(raw, data);
  const mode = options.mode ?? 0o644;
  const sync = options.sync ?? true;
  const lock = lockPathOf(path);
  const handle = await takeLock(fs, path, mode, options.wait ?? DEFAULT_LOCK_WAIT);
  let written: GitFsStats | undefined;
  try {
    if (handle === undefined) {
      await fs.writeFile(lock, data, { mode });
    } else {
      await handle.writeFile(data);
      if (sync) await handle.sync?.();
    }
    const mine = options.identify ? await fs.lstat(lock) : undefined;
    // The handle stays open across the rename, so a live writer is visible in /proc/<pid>/fd
    // (and the inode cannot be reused before the check below).
    await fs.rename(lock, path);
    if (mine !== undefined) {
      const now = await fs.lstat(path).catch(() => undefined);
      if (now !== undefined && Number(now.ino) === Number(mine.ino)) written = now;
    }
  } catch (error) {
    await fs.unlink(lock).catch(() => undefined);
    throw error;
  } finally {
    await handle?.close().catch(() => undefined);
  }
  if (sync) await syncDir(fs, parentDir(path));
  return written;
}

/**
 * Removes `path` under its lock (git deletes a ref the same way): the lock keeps the git CLI from
 * rewriting the file meanwhile, then the file and the lock are removed.
 *
 * @throws {LoopError} `LOCK_HELD` (see {@link takeLock}); the file-system error otherwise.
 */
export async function unlinkThroughLock(
  fs: GitFsPromises,
  path: string,
  wait: LockWait = DEFAULT_LOCK_WAIT,
): Promise<void> {
  const handle = await takeLock(fs, path, 0o644, wait);
  try {
    await fs.unlink(path);
  } finally {
    await handle?.close().catch(() => undefined);
    await fs.unlink(lockPathOf(path)).catch(() => undefined);
  }
  await syncDir(fs, parentDir(path));
}

let tempCounter = 0;

/**
 * Writes a content-addressed file (a loose object or a pack): a temp file beside it, then a rename,
 * so a kill never leaves a torn object that isomorphic-git would trust because it exists. When the
 * temp file cannot be created because the fan-out directory is missing (ENOENT: a fresh
 * repository, or `git gc` pruned it), the directory is created and the write retried, so the
 * common case costs no `lstat`. Not fsynced, like git's default (`core.fsync` leaves loose
 * objects to the OS).
 */
export async function writeByRename(fs: GitFsPromises, path: string, data: Uint8Array, mode?: number): Promise<void> {
  const ops = opsFor(fs, data);
  tempCounter += 1;
  const dir = parentDir(path);
  const temp = `${dir}/tmp_obj_${process.pid}_${tempCounter}`;
  const options = mode === undefined ? undefined : { mode };
  let written = false;
  try {
    try {
      await ops.writeFile(temp, data, options);
    } catch (error) {
      if (foreignCode(error) !== 'ENOENT') throw error;
      try {
        await ops.mkdir(dir, { recursive: true });
      } catch (mkdirError) {
        if (foreignCode(mkdirError) !== 'EEXIST') throw mkdirError; // a concurrent write made it
      }
      await ops.writeFile(temp, data, options);
    }
    written = true;
    await ops.rename(temp, path);
  } catch (error) {
    if (written || foreignCode(error) !== 'ENOENT') await ops.unlink(temp).catch(() => undefined);
    throw error;
  }
}
