import type { GitFsStats } from '../git-fs.js';

/**
 * What a whole-tree walk found (issue 13: the many unchanged files cost no map entry): the files
 * whose stats did not match their index entry (and the untracked, not ignored ones) with their
 * `lstat`, and, for the files whose stats matched (git's stat cache), only a count and a mark by
 * their place in the index (a bitmap), so a scan that finds every index path accounted for never
 * touches the clean ones again.
 */
export class WalkResult {
  /** Files not accepted by the classifier (changed, untracked, or walked without one), with their `lstat`. */
  readonly dirty = new Map<string, GitFsStats>();
  /** How many files the classifier accepted (each one an index path, counted once). */
  cleanCount = 0;
  private readonly seen: Uint8Array | undefined;
  private readonly cleanPaths = new Set<string>();

  /**
   * @param positions Each index path's place in index order (the walk's prefetch list), when known.
   */
  constructor(private readonly positions: ReadonlyMap<string, number> | undefined) {
    this.seen = positions === undefined ? undefined : new Uint8Array(positions.size);
  }

  /** Records a file the classifier accepted; `position`: its place in `positions`, when the caller has it. */
  addClean(path: string, position: number | undefined): void {
    this.cleanCount += 1;
    if (position !== undefined && this.seen !== undefined) this.seen[position] = 1;
    else this.cleanPaths.add(path);
  }

  /**
   * For a walk narrowed to the touched paths (`walkTouched`): a path not `examined` is clean when
   * it is `indexed` (nothing touched it since the last scan found its stats matching).
   */
  assume: { readonly examined: (path: string) => boolean; readonly indexed: (path: string) => boolean } | undefined;

  /** Whether the walk found `path` with stats matching its index entry. */
  isClean(path: string): boolean {
    if (this.assume !== undefined && !this.assume.examined(path)) return this.assume.indexed(path);
    if (this.seen !== undefined) {
      const at = this.positions!.get(path);
      if (at !== undefined && this.seen[at] === 1) return true;
    }
    return this.cleanPaths.size > 0 && this.cleanPaths.has(path);
  }
}
