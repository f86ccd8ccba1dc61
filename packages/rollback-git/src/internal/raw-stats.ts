import type { GitFsStats } from '../git-fs.js';

export const S_IFMT = 0o170000;
export const S_IFDIR = 0o040000;

/** A {@link GitFsStats} over the worker's numbers at `k` (see `STAT_FIELDS`); `at` moves a reused view. */
export class RawStats implements GitFsStats {
  mode = 0;
  size = 0;
  ino = 0;
  mtimeMs = 0;
  ctimeMs = 0;

  constructor(raw?: Float64Array, k?: number) {
    if (raw !== undefined && k !== undefined) this.at(raw, k);
  }

  at(raw: Float64Array, k: number): this {
    this.mode = raw[k]!;
    this.size = raw[k + 1]!;
    this.ino = raw[k + 2]!;
    this.mtimeMs = raw[k + 3]!;
    this.ctimeMs = raw[k + 4]!;
    return this;
  }

  isFile(): boolean {
    return (this.mode & S_IFMT) === 0o100000;
  }

  isDirectory(): boolean {
    return (this.mode & S_IFMT) === S_IFDIR;
  }

  isSymbolicLink(): boolean {
    return (this.mode & S_IFMT) === 0o120000;
  }
}
