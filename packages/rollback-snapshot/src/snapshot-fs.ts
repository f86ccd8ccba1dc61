import { statSync } from 'node:fs';
import * as nodeFs from 'node:fs/promises';

/** The subset of `fs.Stats` the snapshot rollback reads. */
export interface SnapshotStats {
  /** True for a regular file. */
  isFile(): boolean;
  /** True for a directory. */
  isDirectory(): boolean;
  /** Permission and type bits. */
  readonly mode: number;
  /** Last access time (restored together with `mtime`). */
  readonly atime: Date;
  /** Last modification time; preserved by every copy (seed 002 `cp -p`). */
  readonly mtime: Date;
  /** Last modification time in ms since the epoch. */
  readonly mtimeMs: number;
  /** Size in bytes (change detection without a plan; absent: the file is hashed instead). */
  readonly size?: number;
  /** Status-change time in ms since the epoch (cannot be set back by a copy; change detection). */
  readonly ctimeMs?: number;
  /** Inode number (a file replaced by rename has a new one; change detection). */
  readonly ino?: number;
}

/**
 * The `node:fs/promises` subset the snapshot rollback uses. Injected so a test can make a copy
 * fail or count the file operations of one iteration; defaults to `node:fs/promises`.
 */
export interface SnapshotFs {
  /** Reads a whole file. */
  readFile(path: string): Promise<Uint8Array>;
  /** Copies a file's bytes over `dest` (creating or truncating it). */
  copyFile(src: string, dest: string): Promise<void>;
  /** Creates a directory (recursively). */
  mkdir(path: string, options: { recursive: true }): Promise<unknown>;
  /** Stats a path (following symbolic links). */
  stat(path: string): Promise<SnapshotStats>;
  /** Sets a path's access and modification times. */
  utimes(path: string, atime: Date, mtime: Date): Promise<void>;
  /** Sets a path's permission bits. */
  chmod(path: string, mode: number): Promise<void>;
  /** Throws unless `path` is accessible with `mode` (`fs.constants.R_OK`). */
  access(path: string, mode?: number): Promise<void>;
  /** Lists a directory's entry names. */
  readdir(path: string): Promise<string[]>;
  /** Renames a file or directory (same file system: atomic). @default node:fs/promises rename */
  rename?(from: string, to: string): Promise<void>;
  /** Removes a path (`recursive`, `force`). @default node:fs/promises rm */
  rm?(path: string, options: { recursive: true; force: true }): Promise<void>;
  /** Writes a whole file (created or truncated). @default node:fs/promises writeFile */
  writeFile?(path: string, data: Uint8Array): Promise<void>;
  /**
   * Synchronous stat, `undefined` when the path is missing: the change detector's one call per
   * mutable file (several times faster than the promise API for many small stats in Node).
   * @default `stat` awaited per file
   */
  statSync?(path: string): SnapshotStats | undefined;
}

/** The real file system (`node:fs/promises`), every optional member present. */
export const nodeSnapshotFs: Required<SnapshotFs> = {
  readFile: (p) => nodeFs.readFile(p),
  copyFile: (s, d) => nodeFs.copyFile(s, d),
  mkdir: (p, o) => nodeFs.mkdir(p, o),
  stat: (p) => nodeFs.stat(p),
  utimes: (p, a, m) => nodeFs.utimes(p, a, m),
  chmod: (p, m) => nodeFs.chmod(p, m),
  access: (p, m) => nodeFs.access(p, m),
  readdir: (p) => nodeFs.readdir(p),
  rename: (a, b) => nodeFs.rename(a, b),
  rm: (p, o) => nodeFs.rm(p, o),
  writeFile: (p, d) => nodeFs.writeFile(p, d),
  statSync: (p) => statSync(p, { throwIfNoEntry: false }),
};
