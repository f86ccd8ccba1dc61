import type { SnapshotStats } from '../snapshot-fs.js';

/** A file's stat at a checkpoint, enough to tell later whether it was touched (like git's index entry). */
export interface StatKey {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly mode: number;
  /**
   * Changed within the file system's timestamp granularity of the checkpoint (or the stat lacks a
   * field): a later same-size write could keep the same stat, so the file is compared by hash.
   */
  readonly racy: boolean;
}

/**
 * How close (ms) to the checkpoint a change must be to count as racy: a file system with
 * sub-millisecond timestamps stamps with the kernel's coarse clock (a few ms); a whole-millisecond
 * mtime may come from a coarse file system (1-2 s) or a copied timestamp (FACTS.md), so it gets the
 * wide window. Being racy only costs a hash.
 */
const racyWindowMs = (mtimeMs: number) => (mtimeMs % 1 !== 0 ? 50 : 2500);

/** The {@link StatKey} of `stat` taken at `nowMs` (the clock the file system stamps with). */
export function statKey(stat: SnapshotStats, nowMs: number): StatKey {
  const { size, ctimeMs, ino } = stat;
  const complete = size !== undefined && ctimeMs !== undefined && ino !== undefined;
  const window = racyWindowMs(stat.mtimeMs);
  return {
    size: size ?? -1,
    mtimeMs: stat.mtimeMs,
    ctimeMs: ctimeMs ?? -1,
    ino: ino ?? -1,
    mode: stat.mode,
    racy: !complete || stat.mtimeMs >= nowMs - window || (ctimeMs ?? 0) >= nowMs - window,
  };
}

/**
 * True when `stat` is provably the file `key` recorded: same size, mtime, ctime, inode and mode, and the key was not
 * racy.
 */
export function sameStat(key: StatKey, stat: SnapshotStats): boolean {
  return (
    !key.racy &&
    key.size === stat.size &&
    key.mtimeMs === stat.mtimeMs &&
    key.ctimeMs === stat.ctimeMs &&
    key.ino === stat.ino &&
    key.mode === stat.mode
  );
}
