import type { Stats } from 'node:fs';
import type { TreeSnapshotFs } from '../tree-snapshot-fs.js';

/**
 * Called once per file, directory and symlink, parents before children; `path` is relative, `/`-separated; `now` is the
 * walk's start (ms).
 */
export type WalkVisitor = (path: string, abs: string, stat: Stats, now: number) => void;

/** A directory's stat when it was last listed, and its names. */
interface Listing {
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly names: readonly string[];
  readonly racy: boolean;
}

/** A reusable walker of one tree (see {@link createTreeWalker}). */
export interface TreeWalker {
  /** Visits every entry under the root except excluded names (sockets, FIFOs and devices are skipped). */
  readonly walk: (visit: WalkVisitor, now: number) => void;
  /** Forgets every cached directory listing. */
  readonly reset: () => void;
}

/**
 * A synchronous walker: one `lstat` per entry, and one `readdir` per directory whose stat changed
 * since it was last listed (adding, removing or renaming an entry changes its directory's mtime
 * and ctime, like git's untracked cache; a listing taken within 2.5 s of the change is not reused).
 * The synchronous calls are several times faster than the promise API for many small stats in
 * Node, which is what lets a whole-tree check cost about what `git status` does.
 */
export function createTreeWalker(root: string, exclude: ReadonlySet<string>, fs: TreeSnapshotFs): TreeWalker {
  const listings = new Map<string, Listing>();
  const list = (abs: string, stat: Stats, now: number): readonly string[] => {
    const known = listings.get(abs);
    if (
      known !== undefined &&
      !known.racy &&
      known.mtimeMs === stat.mtimeMs &&
      known.ctimeMs === stat.ctimeMs &&
      known.ino === stat.ino
    )
      return known.names;
    const names = fs.readdirSync(abs);
    listings.set(abs, {
      mtimeMs: stat.mtimeMs,
      ctimeMs: stat.ctimeMs,
      ino: stat.ino,
      names,
      racy: stat.mtimeMs >= now - 2500 || stat.ctimeMs >= now - 2500,
    });
    return names;
  };
  const visitDir = (rel: string, abs: string, stat: Stats, visit: WalkVisitor, now: number): void => {
    for (const name of list(abs, stat, now)) {
      if (exclude.has(name)) continue;
      const full = `${abs}/${name}`;
      let st: Stats;
      try {
        st = fs.lstatSync(full); // (the throwIfNoEntry option measured slower than a catch)
      } catch {
        continue; // removed while walking
      }
      const path = rel === '' ? name : `${rel}/${name}`;
      if (st.isDirectory()) {
        visit(path, full, st, now);
        visitDir(path, full, st, visit, now);
      } else if (st.isFile() || st.isSymbolicLink()) visit(path, full, st, now);
    }
  };
  return {
    walk: (visit, now) => {
      const top = fs.lstatSync(root);
      if (!top.isDirectory()) throw new Error(`${root} is not a directory`);
      visitDir('', root, top, visit, now);
    },
    reset: () => listings.clear(),
  };
}
