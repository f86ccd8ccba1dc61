import type { Stats } from 'node:fs';
import type { TreeEntry } from '../tree-snapshot-types.js';

/** The stat a file had when it was last hashed (by a snapshot or a restore), and its hash. */
export interface StatRecord {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly hash: string;
  /** The snapshot entry built from this record, shared by every snapshot while the file is unchanged. */
  readonly entry: Extract<TreeEntry, { type: 'file' }>;
  /** Changed within the timestamp granularity of the moment it was recorded: re-hash next time. */
  readonly racy: boolean;
}

/**
 * How close (ms) to the snapshot a change must be to count as racy. A file system with
 * sub-millisecond timestamps (ext4, xfs, btrfs, tmpfs, APFS) stamps with the kernel's coarse
 * clock (a few ms); a whole-millisecond mtime may come from a coarse file system (FAT: 2 s, HFS+:
 * 1 s) or a copied timestamp (FACTS.md: preserved timestamps round to the ms), so it gets the wide
 * window. Being racy only costs a re-read.
 */
function racyWindowMs(stat: Stats): number {
  return stat.mtimeMs % 1 !== 0 ? 50 : 2500;
}

export /** The record of a file just hashed: its stat, its hash and its shared snapshot entry. */
function statRecord(stat: Stats, hash: string, size: number, now: number): StatRecord {
  const window = racyWindowMs(stat);
  const entry = Object.freeze({ type: 'file' as const, hash, mode: stat.mode & 0o7777, size });
  return {
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    ctimeMs: stat.ctimeMs,
    ino: stat.ino,
    hash,
    entry,
    racy: stat.mtimeMs >= now - window || stat.ctimeMs >= now - window,
  };
}

/** True when `s` still matches the record (and the record is not racy): the file need not be read. */
export const unchanged = (r: StatRecord | undefined, s: Stats): r is StatRecord =>
  r !== undefined &&
  !r.racy &&
  r.size === s.size &&
  r.mtimeMs === s.mtimeMs &&
  r.ctimeMs === s.ctimeMs &&
  r.ino === s.ino;
