import { parentOf } from './paths.js';

/**
 * A set of relative file paths that also answers "is this directory on the way to one of them?"
 * in constant time, for pruning tree walks to a few paths.
 */
export class PathSet {
  private readonly files: Set<string>;
  private readonly dirs = new Set<string>(['.']);

  constructor(paths: Iterable<string>) {
    this.files = new Set(paths);
    for (const path of this.files) {
      for (let dir = parentOf(path); dir !== '.' && !this.dirs.has(dir); dir = parentOf(dir)) this.dirs.add(dir);
    }
  }

  /** True for one of the paths. */
  has(path: string): boolean {
    return this.files.has(path);
  }

  /** True for one of the paths or a directory above one. */
  worthWalking(path: string): boolean {
    return this.files.has(path) || this.dirs.has(path);
  }

  /** How many paths. */
  get size(): number {
    return this.files.size;
  }
}
