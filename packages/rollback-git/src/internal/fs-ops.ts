import nodeFs from 'node:fs';
import type { GitFsStats } from '../git-fs.js';
import { foreignCode } from './errors.js';
import { hashObject } from './object-format.js';
import { writeBlobObject } from './object-store.js';
import { absolute, parentOf } from './paths.js';
import type { Repo } from './repo.js';

/**
 * Whether `repo` works on `node:fs` itself, where the per-file calls of a commit or reset use the
 * synchronous API for small files (issue 13: a thread-pool round trip per call, 0.1-1 ms under
 * load, was most of what each changed file cost; the synchronous call is a few microseconds).
 */
export const onNodeFs = (repo: Repo): boolean => repo.native;

/** Working-tree files up to this size (bytes) are read with the synchronous call on `node:fs`. */
export const SYNC_READ_LIMIT = 256 * 1024;

/** A git file mode: a regular file, an executable, or a symbolic link. */
export const MODE_FILE = 0o100644;
/** An executable file. */
export const MODE_EXECUTABLE = 0o100755;
/** A symbolic link. */
export const MODE_SYMLINK = 0o120000;

/** `lstat`, or `undefined` when nothing is there. */
export async function lstatOrUndefined(repo: Repo, path: string): Promise<GitFsStats | undefined> {
  try {
    if (onNodeFs(repo)) return nodeFs.lstatSync(absolute(repo.dir, path), { throwIfNoEntry: false });
    return await repo.fs.promises.lstat(absolute(repo.dir, path));
  } catch (error) {
    const code = foreignCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** The git mode of a file, executable or symbolic link from its stats; `undefined` for anything else. */
export function gitMode(stats: GitFsStats): number | undefined {
  if (stats.isSymbolicLink()) return MODE_SYMLINK;
  if (!stats.isFile()) return undefined;
  return (Number(stats.mode) & 0o111) !== 0 ? MODE_EXECUTABLE : MODE_FILE;
}

/** What a working-tree path holds, hashed as git would store it. */
export interface WorktreeBlob {
  /** The blob oid of the content (the link target for a symbolic link). */
  readonly oid: string;
  /** {@link MODE_FILE}, {@link MODE_EXECUTABLE} or {@link MODE_SYMLINK}. */
  readonly mode: number;
  /** `lstat` taken before the content was read (the stat data an index entry for it may carry). */
  readonly stats?: GitFsStats;
}

/**
 * Reads and hashes a working-tree path. `undefined` when absent; `'other'` for a directory or a
 * special file.
 */
export async function readWorktreeBlob(repo: Repo, path: string): Promise<WorktreeBlob | 'other' | undefined> {
  const content = await readWorktreeContent(repo, path);
  if (content === undefined || content === 'other') return content;
  return { oid: hashObject('blob', content.bytes), mode: content.mode, stats: content.stats };
}

/** The bytes git stores for a working-tree path (a link's target for a symbolic link) and its mode. */
export async function readWorktreeContent(
  repo: Repo,
  path: string,
): Promise<{ bytes: Uint8Array; mode: number; stats: GitFsStats } | 'other' | undefined> {
  const stats = await lstatOrUndefined(repo, path);
  if (stats === undefined) return undefined;
  const mode = gitMode(stats);
  if (mode === undefined) return 'other';
  const abs = absolute(repo.dir, path);
  try {
    const content =
      mode === MODE_SYMLINK
        ? await repo.fs.promises.readlink(abs)
        : onNodeFs(repo) && Number(stats.size) <= SYNC_READ_LIMIT
          ? nodeFs.readFileSync(abs)
          : await repo.fs.promises.readFile(abs);
    return { bytes: typeof content === 'string' ? new TextEncoder().encode(content) : content, mode, stats };
  } catch (error) {
    const code = foreignCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined; // vanished since lstat
    throw error;
  }
}

/**
 * Writes a working-tree file (or link) to the object store. `undefined` when absent; `'other'` for
 * a directory or a special file.
 */
export async function storeWorktreeBlob(repo: Repo, path: string): Promise<WorktreeBlob | 'other' | undefined> {
  const content = await readWorktreeContent(repo, path);
  if (content === undefined || content === 'other') return content;
  const oid = await writeBlobObject(repo, content.bytes);
  return { oid, mode: content.mode, stats: content.stats };
}

/** Removes a file, a symbolic link or a whole directory tree. Absent is fine. */
export async function removePath(repo: Repo, path: string): Promise<void> {
  const stats = await lstatOrUndefined(repo, path);
  if (stats === undefined) return;
  const abs = absolute(repo.dir, path);
  if (stats.isDirectory()) {
    for (const name of await repo.fs.promises.readdir(abs)) await removePath(repo, `${path}/${String(name)}`);
    await repo.fs.promises.rmdir(abs);
  } else {
    await repo.fs.promises.unlink(abs);
  }
}

/**
 * Removes the now-empty directories above a removed path, bottom up, stopping at the first one that
 * is not empty (or at the working-tree root).
 */
export async function removeEmptyParents(repo: Repo, path: string): Promise<void> {
  for (let dir = parentOf(path); dir !== '.'; dir = parentOf(dir)) {
    try {
      await repo.fs.promises.rmdir(absolute(repo.dir, dir));
    } catch (error) {
      if (foreignCode(error) === 'ENOENT') continue;
      return; // ENOTEMPTY, EEXIST, ENOTDIR: something still lives here
    }
  }
}

/**
 * Creates the parent directories of `path`, replacing a file or link that stands in the way.
 * A directory another concurrent call created meanwhile (EEXIST) is accepted.
 */
export async function ensureParents(repo: Repo, path: string): Promise<void> {
  const parts = path.split('/').slice(0, -1);
  let current = '';
  for (const part of parts) {
    current = current === '' ? part : `${current}/${part}`;
    const stats = await lstatOrUndefined(repo, current);
    if (stats?.isDirectory()) continue;
    if (stats !== undefined) await repo.fs.promises.unlink(absolute(repo.dir, current));
    try {
      await repo.fs.promises.mkdir(absolute(repo.dir, current));
    } catch (error) {
      if (foreignCode(error) !== 'EEXIST' || !(await lstatOrUndefined(repo, current))?.isDirectory()) throw error;
    }
  }
}

/**
 * Rewrites an existing regular file's bytes from offset 0, then cuts it to their length, without
 * truncating it to 0 first: ext4 flushes a file truncated to 0 and rewritten when it is closed
 * (its `auto_da_alloc` rule for replace-by-truncate), which cost 80-180 us per file here against
 * 15-25 us for this (issue 13). Same result and the same kill window as `writeFile` (the file is
 * written in place either way).
 */
function overwriteInPlace(abs: string, content: Uint8Array): void {
  const fd = nodeFs.openSync(abs, 'r+');
  try {
    let done = 0;
    while (done < content.length) done += nodeFs.writeSync(fd, content, done, content.length - done, done);
    nodeFs.ftruncateSync(fd, content.length);
  } finally {
    nodeFs.closeSync(fd);
  }
}

/**
 * Writes a blob to the working tree with its mode: a regular file, an executable (0755) or a
 * symbolic link. Whatever stood at the path is replaced.
 */
export async function writeWorktreeBlob(repo: Repo, path: string, mode: number, content: Uint8Array): Promise<void> {
  const abs = absolute(repo.dir, path);
  const existing = await lstatOrUndefined(repo, path);
  if (existing === undefined) {
    await ensureParents(repo, path);
  } else if (existing.isDirectory()) {
    await removePath(repo, path);
  } else if (mode === MODE_SYMLINK || gitMode(existing) !== mode) {
    await repo.fs.promises.unlink(abs);
  }
  if (mode === MODE_SYMLINK) {
    await repo.fs.promises.symlink(new TextDecoder().decode(content), abs);
    return;
  }
  const executable = mode === MODE_EXECUTABLE;
  if (
    existing !== undefined &&
    existing.isFile() &&
    gitMode(existing) === mode &&
    onNodeFs(repo) &&
    content.length <= SYNC_READ_LIMIT
  ) {
    overwriteInPlace(abs, content);
    return;
  }
  await repo.fs.promises.writeFile(abs, content, { mode: executable ? 0o755 : 0o644 });
  if (executable) await repo.fs.promises.chmod(abs, 0o755);
}
