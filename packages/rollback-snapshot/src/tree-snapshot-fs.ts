import nodeFs, { type Stats } from 'node:fs';

/**
 * The synchronous file-system calls of the tree snapshot store (`node:fs` by default). Passed in so
 * a test can make one call fail (a restore that fails half-way must put the tree back) on a real
 * directory; an implementation must behave like `node:fs` (errors carry an errno `code`).
 */
export interface TreeSnapshotFs {
  /** `lstat` (symlinks not followed). */
  readonly lstatSync: (path: string) => Stats;
  /** A directory's entry names. */
  readonly readdirSync: (path: string) => string[];
  /** A symlink's target, verbatim. */
  readonly readlinkSync: (path: string) => string;
  /** A whole file. */
  readonly readFileSync: (path: string) => Buffer;
  /** Writes a whole file, created with `mode` (before the umask). */
  readonly writeFileSync: (path: string, data: Uint8Array, options?: { mode?: number }) => void;
  /** Renames over an existing file (same directory: atomic). */
  readonly renameSync: (from: string, to: string) => void;
  /** Sets permission bits. */
  readonly chmodSync: (path: string, mode: number) => void;
  /** Removes a file, symlink or (recursive) directory; `force` ignores a missing path. */
  readonly rmSync: (path: string, options?: { recursive?: boolean; force?: boolean }) => void;
  /** Creates a directory (`recursive`: and its parents; no error when it exists). */
  readonly mkdirSync: (path: string, options?: { recursive?: boolean }) => unknown;
  /** Creates a symlink at `path` pointing at `target` (verbatim). */
  readonly symlinkSync: (target: string, path: string) => void;
  /** True when the path exists. */
  readonly existsSync: (path: string) => boolean;
}

/** `node:fs` as a {@link TreeSnapshotFs}. */
export const nodeTreeSnapshotFs: TreeSnapshotFs = Object.freeze({
  lstatSync: (path: string) => nodeFs.lstatSync(path),
  readdirSync: (path: string) => nodeFs.readdirSync(path),
  readlinkSync: (path: string) => nodeFs.readlinkSync(path),
  readFileSync: (path: string) => nodeFs.readFileSync(path),
  writeFileSync: (path: string, data: Uint8Array, options?: { mode?: number }) =>
    nodeFs.writeFileSync(path, data, options),
  renameSync: (from: string, to: string) => nodeFs.renameSync(from, to),
  chmodSync: (path: string, mode: number) => nodeFs.chmodSync(path, mode),
  rmSync: (path: string, options?: { recursive?: boolean; force?: boolean }) => nodeFs.rmSync(path, options),
  mkdirSync: (path: string, options?: { recursive?: boolean }) => nodeFs.mkdirSync(path, options),
  symlinkSync: (target: string, path: string) => nodeFs.symlinkSync(target, path),
  existsSync: (path: string) => nodeFs.existsSync(path),
});
