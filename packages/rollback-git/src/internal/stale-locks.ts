import nodeFs from 'node:fs';
import type { GitFs } from '../git-fs.js';
import { foreignCode } from './errors.js';

/** Locks younger than this are left alone where no process table can be read (not Linux). */
const UNKNOWN_OWNER_STALE_MS = 60_000;

async function exists(fs: GitFs, path: string): Promise<boolean> {
  try {
    await fs.promises.lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function namesIn(fs: GitFs, dir: string): Promise<string[]> {
  try {
    return (await fs.promises.readdir(dir)).map(String);
  } catch (error) {
    const code = foreignCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

async function isDir(fs: GitFs, path: string): Promise<boolean> {
  try {
    return (await fs.promises.lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The lock and temp files a killed writer can leave under `gitdir`: `index.lock`, `HEAD.lock`,
 * `config.lock`, `packed-refs.lock`, `info/exclude.lock`, every `refs/**\/*.lock`, and the
 * `objects/xx/tmp_obj_*` and `objects/pack/tmp_obj_*` temp files of an interrupted object or pack
 * write. Absolute paths.
 */
export async function leftoverLockFiles(fs: GitFs, gitdir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of ['index.lock', 'HEAD.lock', 'config.lock', 'packed-refs.lock', 'info/exclude.lock']) {
    if (await exists(fs, `${gitdir}/${name}`)) found.push(`${gitdir}/${name}`);
  }
  const walk = async (dir: string): Promise<void> => {
    for (const name of await namesIn(fs, dir)) {
      const path = `${dir}/${name}`;
      if (name.endsWith('.lock')) found.push(path);
      else if (await isDir(fs, path)) await walk(path);
    }
  };
  await walk(`${gitdir}/refs`);
  for (const fan of await namesIn(fs, `${gitdir}/objects`)) {
    if (!/^[0-9a-f]{2}$/.test(fan) && fan !== 'pack') continue;
    for (const name of await namesIn(fs, `${gitdir}/objects/${fan}`)) {
      if (name.startsWith('tmp_obj_')) found.push(`${gitdir}/objects/${fan}/${name}`);
    }
  }
  return found;
}

/**
 * Packs under `gitdir/objects/pack` without their index (`pack-<sha>.pack`, no `pack-<sha>.idx`):
 * what a kill leaves between a pack write's two renames (rollback-git writes the pack first and
 * the index last, as git does), or between a merge's removal of an old pack's index and of the
 * pack. Git never reads a pack without its index, so such a file holds nothing reachable; it is
 * only garbage (`git count-objects -v`). Absolute paths.
 */
export async function orphanPacks(fs: GitFs, gitdir: string): Promise<string[]> {
  const names = new Set(await namesIn(fs, `${gitdir}/objects/pack`));
  return [...names]
    .filter((name) => /^pack-[0-9a-f]{40}\.pack$/.test(name) && !names.has(`${name.slice(0, -5)}.idx`))
    .map((name) => `${gitdir}/objects/pack/${name}`);
}

/**
 * The set of files some live process holds open, from `/proc/<pid>/fd` (Linux), or `undefined`
 * when the process table cannot be read. A git CLI writing the index holds `index.lock` open
 * until it renames it; so does rollback-git's own lock-file write.
 */
export function openFilesOfLiveProcesses(): Set<string> | undefined {
  let pids: string[];
  try {
    pids = nodeFs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const open = new Set<string>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = nodeFs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or another user's: its locks count as held by age below
    }
    for (const fd of fds) {
      try {
        open.add(nodeFs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        // closed meanwhile
      }
    }
  }
  return open;
}

/**
 * Removes the lock and temp files under `gitdir` that no live process holds (a killed loop's, or
 * a killed git's), and packs without their index (`orphanPacks`). A lock some process has open is
 * kept. Where the process table cannot be read, or the file is not on the real file system
 * (memfs), a lock counts as stale only when older than a minute. An orphan pack is removed only
 * when no process holds it open and it is older than a minute whatever the process table says: a
 * git writing a pack elsewhere (`git gc` in another shell) renames its pack a moment before its
 * index and need not hold it open in between.
 *
 * @param now - Milliseconds since the epoch (the rollback's clock).
 * @param realPath - Where a path under `gitdir` is on disk (a linked worktree's `index.lock` is in
 *   its own directory, see `worktreeGitFs`). @default the path itself
 * @returns the removed paths, relative to `gitdir`.
 */
export async function removeStaleLocks(
  fs: GitFs,
  gitdir: string,
  now: number,
  realPath: (path: string) => string = (p) => p,
): Promise<string[]> {
  const leftovers = await leftoverLockFiles(fs, gitdir);
  const orphans = new Set(await orphanPacks(fs, gitdir));
  if (leftovers.length === 0 && orphans.size === 0) return [];
  const open = openFilesOfLiveProcesses();
  const removed: string[] = [];
  for (const path of [...leftovers, ...orphans]) {
    const stats = await fs.promises.lstat(path).catch(() => undefined);
    if (stats === undefined) continue;
    const onDisk = open !== undefined && sameFileOnDisk(realPath(path), stats.ino);
    const held = onDisk && open.has(realPath(path));
    const young = now - Number(stats.mtimeMs) < UNKNOWN_OWNER_STALE_MS;
    // A lock: held decides where it can be told, else age. An orphan pack: both must clear.
    if (held || ((orphans.has(path) || !onDisk) && young)) continue;
    try {
      await fs.promises.unlink(path);
      removed.push(path.slice(gitdir.length + 1));
    } catch (error) {
      if (foreignCode(error) !== 'ENOENT') throw error;
    }
  }
  return removed;
}

/** True when `path` on the real disk is the file `fs` sees (same inode): /proc then applies. */
function sameFileOnDisk(path: string, ino: number | bigint): boolean {
  try {
    return Number(nodeFs.lstatSync(path).ino) === Number(ino);
  } catch {
    return false;
  }
}
