import type { Clock } from '@loop/core';
import type { SnapshotFs } from '../snapshot-fs.js';
import { sameStat, statKey, type StatKey } from './touched.js';

/**
 * The stat record of a snapshot rollback's mutable files at the kept state (like git's index): a file
 * whose stat still matches its record was not touched. `stats` is bounded by the surface.
 *
 * @param abs - a file's absolute path from its workspace-relative one
 * @param each - the store's bounded pool (used when the fs has no `statSync`)
 * @param fsClock - the clock the file system stamps files with (racy-file check)
 */
export function createStatRecord(
  fs: SnapshotFs,
  abs: (file: string) => string,
  each: <T, R>(items: Iterable<T>, f: (item: T) => Promise<R>) => Promise<R[]>,
  fsClock: Clock,
) {
  const stats = new Map<string, StatKey>();
  /** Absolute paths of the mutable files, computed once per file (the detector visits every one per iteration). */
  const absolute = new Map<string, string>();
  const absOf = (f: string) => {
    let a = absolute.get(f);
    if (a === undefined) absolute.set(f, (a = abs(f)));
    return a;
  };
  const statOf = async (f: string) =>
    fs.statSync ? fs.statSync(abs(f)) : await fs.stat(abs(f)).catch(() => undefined);
  /**
   * Runs `f` over `items`: in one synchronous loop when the fs has `statSync` (the detector's
   * per-file cost is then one stat call, no promise), else in the bounded pool.
   */
  const overFiles = async <T>(
    items: readonly string[],
    f: (file: string, st: ReturnType<NonNullable<SnapshotFs['statSync']>>) => T,
  ): Promise<T[]> => {
    const sync = fs.statSync;
    if (sync) return items.map((file) => f(file, sync(absOf(file))));
    return each(items, async (file) => f(file, await fs.stat(abs(file)).catch(() => undefined)));
  };
  /** Records the current stat of `which` as the kept state's (after a start, keep or restore). */
  const recordStats = async (which: Iterable<string>) => {
    const now = fsClock.now();
    await overFiles([...which], (f, st) => {
      if (st) stats.set(f, statKey(st, now));
      else stats.delete(f);
    });
  };
  /**
   * The files of `files` an edit may have touched: `planned` plus every file whose stat differs from
   * its record (one stat per file, no read), and racy ones whose hash (`hashOf`) differs from the kept
   * state's (`keptHash`). A file without a record (a resumed process) counts. Sorted.
   */
  const touchedFiles = async (
    files: readonly string[],
    planned: ReadonlySet<string>,
    hashOf: (file: string) => Promise<string | null>,
    keptHash: (file: string) => string | null | undefined,
  ): Promise<string[]> => {
    const now = fsClock.now();
    const out: string[] = [];
    const racy: [string, NonNullable<ReturnType<NonNullable<SnapshotFs['statSync']>>>][] = [];
    await overFiles(files, (f, st) => {
      const key = stats.get(f);
      if (planned.has(f) || key === undefined || st === undefined) out.push(f);
      else if (sameStat(key, st)) return;
      else if (key.racy && key.size === st.size) racy.push([f, st]);
      else out.push(f);
    });
    await each(racy, async ([f, st]) => {
      if ((await hashOf(f)) !== keptHash(f)) out.push(f);
      else stats.set(f, statKey(st, now)); // same bytes: re-record, no longer racy once its window has passed
    });
    return out.sort();
  };
  return { stats, absOf, statOf, overFiles, recordStats, touchedFiles };
}
