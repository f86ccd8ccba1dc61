/** The subset of `fs.Stats` that rollback-git reads. */
export interface GitFsStats {
  /** True for a regular file. */
  isFile(): boolean;
  /** True for a directory. */
  isDirectory(): boolean;
  /** True for a symbolic link (from `lstat`). */
  isSymbolicLink(): boolean;
  /** The permission and type bits. */
  readonly mode: number | bigint;
  /** Size in bytes. */
  readonly size: number | bigint;
  /** Inode number. */
  readonly ino: number | bigint;
  /** Modification time, milliseconds since the epoch. */
  readonly mtimeMs: number | bigint;
  /** Status-change time, milliseconds since the epoch. */
  readonly ctimeMs: number | bigint;
}

/** The promise API subset that rollback-git calls directly (isomorphic-git needs the same). */
export interface GitFsPromises {
  /** Reads a whole file. */
  readFile(path: string): Promise<Uint8Array | string>;
  /** Writes a whole file, creating it with `mode` when it does not exist (`flag: 'wx'`: only when it does not). */
  writeFile(path: string, data: Uint8Array, options?: { mode?: number; flag?: string }): Promise<unknown>;
  /** Removes a file or symbolic link. */
  unlink(path: string): Promise<unknown>;
  /** Lists a directory's entry names. */
  readdir(path: string): Promise<readonly unknown[]>;
  /** Creates a directory. */
  mkdir(path: string, options?: { recursive?: boolean }): Promise<unknown>;
  /** Removes an empty directory. */
  rmdir(path: string): Promise<unknown>;
  /** Stats a path without following a final symbolic link. */
  lstat(path: string): Promise<GitFsStats>;
  /** Reads a symbolic link's target. */
  readlink(path: string): Promise<string | Uint8Array>;
  /** Creates a symbolic link at `path` pointing at `target`. */
  symlink(target: string, path: string): Promise<unknown>;
  /** Sets a path's permission bits. */
  chmod(path: string, mode: number): Promise<unknown>;
  /** Renames `from` to `to`, replacing `to` atomically (the lock-file protocol's commit step). */
  rename(from: string, to: string): Promise<unknown>;
  /**
   * Optional: opens a file (`'wx'` creates it exclusively), for writes that must be fsynced and
   * for directory fsyncs. Without it a lock file is created with `writeFile(..., { flag: 'wx' })`
   * and nothing is fsynced.
   */
  open?(path: string, flags: string, mode?: number): Promise<GitFsFileHandle>;
  /** Optional: removes a path (`{ recursive: true }` for a tree); isomorphic-git prefers it. */
  rm?(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<unknown>;
  /** Stats a path, following symbolic links (isomorphic-git needs it). */
  stat?(path: string): Promise<GitFsStats>;
}

/** The subset of `fs.promises.FileHandle` the lock-file protocol uses. */
export interface GitFsFileHandle {
  /** Writes all of `data` at the current position. */
  writeFile(data: Uint8Array): Promise<unknown>;
  /** fsyncs the file (or directory); skipped where absent. */
  sync?(): Promise<unknown>;
  /** Closes the handle. */
  close(): Promise<unknown>;
}

/**
 * A `node:fs`-compatible module with a `promises` API: `node:fs` itself or a memfs instance
 * (`memfs().fs`). isomorphic-git receives the same object.
 */
export interface GitFs {
  /** The promise API. */
  readonly promises: GitFsPromises;
}
