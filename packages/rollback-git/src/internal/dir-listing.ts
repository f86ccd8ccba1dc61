import nodeFs, { type Dirent } from 'node:fs';
import { foreignCode } from './errors.js';

/**
 * What a directory entry is, as `readdir` reported it: `File` (a regular file or a symbolic link: the walk `lstat`s
 * it), `Directory` (the walk enters it), `Other` (anything else, or a type the file system did not report: the walk
 * `lstat`s it to decide).
 */
export const EntryKind = { File: 0, Directory: 1, Other: 2 } as const;

/** One of {@link EntryKind}'s values. */
export type EntryKind = (typeof EntryKind)[keyof typeof EntryKind];

/** One entry of a listed directory, with its relative path built once. */
export interface ListedEntry {
  /** The name in its directory. */
  readonly name: string;
  /** Relative path from the working-tree root, `/`-separated. */
  readonly path: string;
  /** What `readdir` said it is. */
  readonly kind: EntryKind;
  /** The walk's place for this path in its second thread's list, valid while `positionKey` is that list's key. */
  position?: number | undefined;
  /** The prefetch key `position` was looked up for. */
  positionKey?: string;
}

interface Listing {
  readonly ino: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** Whether the directory's times were old enough, when it was read, to trust them next time (racy git). */
  readonly trusted: boolean;
  readonly entries: readonly ListedEntry[];
  /** The walk that last used it (listings no walk used are dropped). */
  walk: number;
}

/**
 * A directory whose mtime or ctime is this close (ms) to the instant it was read is read again next
 * time: a change in the same file-system clock tick (a jiffy, 1-10 ms; the kernel stamps with a
 * coarse clock) could leave its times unchanged (git's "racy" rule, applied to directories).
 */
export const RACY_DIRECTORY_MS = 50;

/**
 * The listings of the working tree's directories, kept between walks the way git's untracked
 * cache keeps them (issue 13): a directory's entries change only with its mtime and ctime (creating,
 * removing or renaming an entry updates both; `utimes` can set the mtime back but never the ctime),
 * so while a directory's `lstat` (inode, mtime, ctime) equals the one taken when it was read, its
 * `readdir` is skipped and the kept entries are used. A file changed in place leaves its directory's
 * times alone, which is why the walk still `lstat`s every file. One `lstat` per directory replaces a
 * `readdir` of all its entries.
 */
export class DirectoryListings {
  private readonly listings = new Map<string, Listing>();
  private walk = 0;

  /**
   * @param now The clock the racy rule compares directory times with, ms since the epoch (the file system's clock).
   * @default Date.now
   */
  constructor(private readonly now: () => number = Date.now) {}
  /** Readdirs and reuses since the cache was made (for tests and benchmarks). */
  readonly counts = { read: 0, reused: 0 };

  /** Starts a walk: listings the previous walk did not use are dropped (bounded by the tree). */
  beginWalk(): void {
    const previous = this.walk;
    this.walk += 1;
    if (previous === 0) return;
    for (const [dir, listing] of this.listings) if (listing.walk !== previous) this.listings.delete(dir);
  }

  /**
   * The entries of directory `dir` (relative; `'.'` for the root) at `absDir`, `.git` left out:
   * the kept listing while the directory's stat data is unchanged, else a fresh `readdir`.
   *
   * @returns `undefined` when the directory is gone (or is no longer a directory).
   * @throws the file-system error of a `readdir` that fails for another reason than ENOENT/ENOTDIR.
   */
  list(dir: string, absDir: string): readonly ListedEntry[] | undefined {
    const readAt = this.now();
    let stats: nodeFs.Stats | undefined;
    try {
      stats = nodeFs.lstatSync(absDir, { throwIfNoEntry: false });
    } catch (error) {
      if (foreignCode(error) !== 'ENOTDIR') throw error;
    }
    if (stats === undefined || !stats.isDirectory()) {
      this.listings.delete(dir);
      return undefined;
    }
    const kept = this.listings.get(dir);
    if (
      kept !== undefined &&
      kept.trusted &&
      kept.ino === stats.ino &&
      kept.mtimeMs === stats.mtimeMs &&
      kept.ctimeMs === stats.ctimeMs
    ) {
      kept.walk = this.walk;
      this.counts.reused += 1;
      return kept.entries;
    }
    let dirents: Dirent[];
    try {
      dirents = nodeFs.readdirSync(absDir, { withFileTypes: true });
    } catch (error) {
      const code = foreignCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        this.listings.delete(dir);
        return undefined; // removed while walked
      }
      throw error;
    }
    this.counts.read += 1;
    const entries: ListedEntry[] = [];
    for (const dirent of dirents) {
      const name = dirent.name;
      if (name === '.git') continue;
      const kind = dirent.isDirectory()
        ? EntryKind.Directory
        : dirent.isFile() || dirent.isSymbolicLink()
          ? EntryKind.File
          : EntryKind.Other;
      entries.push({ name, path: dir === '.' ? name : `${dir}/${name}`, kind });
    }
    const trusted = stats.mtimeMs < readAt - RACY_DIRECTORY_MS && stats.ctimeMs < readAt - RACY_DIRECTORY_MS;
    this.listings.set(dir, {
      ino: stats.ino,
      mtimeMs: stats.mtimeMs,
      ctimeMs: stats.ctimeMs,
      trusted,
      entries,
      walk: this.walk,
    });
    return entries;
  }
}
