import type { WorktreeChange } from './worktree-scan.js';

/**
 * The scans one rollback hands from one step to the next (option `reuseScans`, issue 13), so an
 * engine iteration (checkpoint, changedPaths, edit, changedPaths, commit, harness, revert) walks
 * the working tree twice (the after-edit inspection and the revert) instead of four times. Each
 * hand-off is used at most once and only while the branch tip is the one it was made at; any
 * other rollback step drops both (`drop`).
 */
export interface ScanHandOff {
  /** `changedPaths()` scanned `changes` against `tip`: the next `commit` may take them. */
  scanned(tip: string, changes: readonly WorktreeChange[]): void;
  /** A revert reset the tree to `tip` and verified it: the next `changedPaths()` may report it clean. */
  reverted(tip: string): void;
  /** For `commit` at `tip`: the changes the last `changedPaths()` found, or `undefined` (scan). */
  forCommit(tip: string): readonly WorktreeChange[] | undefined;
  /** For `changedPaths()` at `tip`: `[]` right after a revert to `tip`, or `undefined` (scan). */
  forChangedPaths(tip: string): readonly WorktreeChange[] | undefined;
  /** A checkpoint was taken: the scan for `commit` is dropped, the clean tree after a revert is not. */
  checkpointed(): void;
  /** Forgets both hand-offs. */
  drop(): void;
}

/** A {@link ScanHandOff}; when `enabled` is false it never hands anything on. */
export function createScanHandOff(enabled: boolean): ScanHandOff {
  let scan: { readonly tip: string; readonly changes: readonly WorktreeChange[] } | undefined;
  let clean: string | undefined;
  return {
    scanned: (tip, changes) => {
      clean = undefined;
      scan = enabled ? { tip, changes } : undefined;
    },
    reverted: (tip) => {
      scan = undefined;
      clean = enabled ? tip : undefined;
    },
    forCommit: (tip) => {
      const taken = scan;
      scan = undefined;
      clean = undefined;
      return taken?.tip === tip ? taken.changes : undefined;
    },
    forChangedPaths: (tip) => {
      const taken = clean;
      clean = undefined;
      scan = undefined;
      return taken === tip ? [] : undefined;
    },
    checkpointed: () => {
      scan = undefined;
    },
    drop: () => {
      scan = undefined;
      clean = undefined;
    },
  };
}
