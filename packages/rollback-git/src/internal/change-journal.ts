// The change journal (issue 31): which working-tree paths the OS reported touched since the last
// scan, so a scan stats only those instead of every file. Node's `fs.watch` on each directory a
// whole-tree walk enters (libuv's inotify on Linux: one queue for the process, one watch per
// directory, events delivered on the next turn of the event loop, no debounce).
import nodeFs, { type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { QueueMarker } from './queue-marker.js';
import { maxQueuedEvents, unsupported } from './watch-support.js';

/** Limits of a {@link ChangeJournal}; tests inject small ones. */
export interface JournalLimits {
  /**
   * Events between two scans at or above which the kernel's queue may have overflowed (libuv
   * drops `IN_Q_OVERFLOW` silently): the next scan walks the whole tree.
   * @default half of /proc/sys/fs/inotify/max_queued_events (16384), so 8192
   */
  readonly overflowAt?: number;
  /** How long a scan waits for the journal's own marker event (ms) before walking the whole tree. @default 5000 */
  readonly syncTimeoutMs?: number;
}

/** Scans by kind over every journal of the process (tests check the watch was really used). */
export const journalTotals = { full: 0, partial: 0 };

/** A position in a journal's log of created, removed and renamed paths. */
export interface StructureMark {
  readonly generation: number;
  readonly at: number;
}

/** What a scan may use instead of walking: every path touched since the previous take. */
export interface JournalTake {
  /** Relative paths (files, directories, or gone) to examine; a directory's whole subtree is examined. */
  readonly paths: ReadonlySet<string>;
}

/**
 * One repository's change journal. Valid once a whole-tree walk has put a watch on every
 * directory it entered (before listing it, so nothing changes unseen between the watch and the
 * walk's `lstat`), and until something may have been missed: a possible queue overflow, a watcher
 * error, a failed or late marker, a watch that could not be added (the `max_user_watches`
 * limit), a `.gitignore` or `.git/info/exclude` change, an index written by another program.
 * Then {@link take} returns `undefined` and the scan walks the whole tree again (and re-arms).
 */
export class ChangeJournal {
  private readonly watchers = new Map<string, FSWatcher>();
  private touched = new Set<string>();
  private events = 0;
  private valid = false;
  private lost: string | undefined;
  private disabled: string | undefined;
  private readonly overflowAt: number;
  private readonly syncTimeoutMs: number;
  private marker: QueueMarker | undefined;
  private markers = 0;
  private excludeKey: string | undefined;
  private indexReads = -1;
  /** Paths of the entries created, removed or renamed since {@link generation} began (fs.watch's `rename`). */
  private structure: string[] = [];
  /** Bumped whenever the journal may have missed something, restarts, or its structure log is cut. */
  generation = 0;
  /** Scans by kind since the journal was made (tests and benchmarks read them). */
  readonly counts = { full: 0, partial: 0 };
  /** Why the last whole-tree walk was needed (tests and benchmarks read it). */
  lastFallback: string | undefined;

  /**
   * @param dir Absolute working-tree root.
   * @param gitdir The repository directory (`.git`): the marker directory `loop-watch` is made in it.
   */
  constructor(
    private readonly dir: string,
    private readonly gitdir: string,
    limits: JournalLimits = {},
  ) {
    this.disabled = unsupported(dir);
    this.overflowAt = limits.overflowAt ?? Math.floor(maxQueuedEvents() / 2);
    this.syncTimeoutMs = limits.syncTimeoutMs ?? 5000;
  }

  /** Whether the journal can be used on this machine and file system. */
  get usable(): boolean {
    return this.disabled === undefined;
  }

  /** Marks the journal as possibly missing changes: the next scan walks the whole tree. */
  invalidate(reason: string): void {
    if (this.valid) this.lost = reason;
    this.valid = false;
    this.generation += 1;
    this.structure = [];
  }

  /**
   * A whole-tree walk starts: the journal restarts from now and the walk will {@link watch} every
   * directory. `indexReads`: how often `.git/index` was read from disk so far (see `take`).
   */
  beginWalk(indexReads: number): void {
    this.indexReads = indexReads;
    this.touched = new Set();
    this.events = 0;
    this.lost = undefined;
    this.valid = this.usable && this.ensureMarker();
    this.generation += 1;
    this.structure = [];
    this.excludeKey = this.readExcludeKey();
    this.counts.full += 1;
    journalTotals.full += 1;
  }

  /**
   * Puts a watch on directory `rel` (relative, `'.'` for the root) at `abs` unless it has one.
   * Called by a walk before it lists the directory.
   */
  watch(rel: string, abs: string): void {
    if (!this.valid || this.watchers.has(rel)) return;
    let watcher: FSWatcher;
    try {
      watcher = nodeFs.watch(abs, { persistent: false }, (type, name) => this.onEvent(rel, name, type));
    } catch (error) {
      // ENOENT: removed while walked (its parent saw that). ENOSPC (the max_user_watches limit) and
      // anything else: give up watching for good (a walk per scan, as without watch), not retry per scan.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') this.giveUp(`watch on ${rel} failed (${code ?? 'error'})`);
      return;
    }
    watcher.on('error', () => {
      this.unwatch(rel);
      this.invalidate(`watcher of ${rel} failed`);
    });
    this.watchers.set(rel, watcher);
  }

  /**
   * Waits until every event queued before now was delivered (a marker file's own event comes
   * after them: one inotify queue), then hands over the paths touched since the last take.
   * `indexReads`: how often `.git/index` was read from disk so far; a read since the last take
   * means another program wrote it (ours are kept without a read), so its entries are not trusted.
   *
   * @returns `undefined` when something may have been missed: walk the whole tree.
   */
  async take(indexReads: number): Promise<JournalTake | undefined> {
    if (!this.valid) {
      this.lastFallback = this.lost ?? (this.usable ? 'not watching yet' : this.disabled);
      return undefined;
    }
    if (indexReads !== this.indexReads) this.invalidate('.git/index was written by another program');
    else if (!(await this.sync())) this.invalidate('the marker event did not arrive in time');
    else if (this.events >= this.overflowAt)
      this.invalidate(`${this.events} events since the last scan (the queue may have overflowed)`);
    else if (this.readExcludeKey() !== this.excludeKey) this.invalidate('.git/info/exclude changed');
    else
      for (const path of this.touched)
        if (path === '.gitignore' || path.endsWith('/.gitignore')) this.invalidate(`${path} changed`);
    if (!this.valid) return this.take(indexReads);
    const paths = this.touched;
    this.touched = new Set();
    this.events = 0;
    this.counts.partial += 1;
    journalTotals.partial += 1;
    return { paths };
  }

  /** Adds paths to the next take (what our own writes touched, or a scan's changes still pending). */
  note(paths: Iterable<string>): void {
    for (const path of paths) this.touched.add(path);
  }

  /** Stops for good: closes the watchers and every later scan walks (the reason is `lastFallback`). */
  private giveUp(reason: string): void {
    this.close();
    this.disabled = reason;
    this.lost = reason;
  }

  /** Closes every watcher (the journal is invalid afterwards). */
  close(): void {
    for (const rel of [...this.watchers.keys()]) this.unwatch(rel);
    this.marker?.close();
    this.marker = undefined;
    this.invalidate('closed');
  }

  /**
   * A position in the structure log: {@link structureSince} with it gives every path created,
   * removed or renamed after it, while the journal stays valid. Waits for the queue like `take`.
   */
  async structureMark(): Promise<StructureMark | undefined> {
    if (!this.valid || !(await this.sync())) return undefined;
    return { generation: this.generation, at: this.structure.length };
  }

  /**
   * The paths created, removed or renamed since `mark` (the queue read up to now), with the mark
   * of now, or `undefined` if the journal may have missed one since `mark`.
   */
  async structureSince(
    mark: StructureMark | undefined,
  ): Promise<{ readonly paths: string[]; readonly mark: StructureMark } | undefined> {
    if (mark === undefined || !this.valid || mark.generation !== this.generation) return undefined;
    if (!(await this.sync()) || mark.generation !== this.generation) return undefined;
    const at = this.structure.length;
    return { paths: this.structure.slice(mark.at, at), mark: { generation: this.generation, at } };
  }

  private onEvent(dir: string, name: string | Buffer | null, type?: string): void {
    this.events += 1;
    if (name === null) {
      this.invalidate(`an event without a name in ${dir}`);
      return;
    }
    const file = String(name);
    if (dir === '.' && file === '.git') return;
    const path = dir === '.' ? file : `${dir}/${file}`;
    this.touched.add(path);
    if (type === 'rename') {
      if (this.structure.length >= 100_000) {
        this.generation += 1; // the log is cut: its readers list again
        this.structure = [];
      }
      this.structure.push(path);
    }
    // A directory renamed or removed: its watches may now report under another name (a watch
    // follows the inode). Close them; the scan walks the path's subtree and watches it again.
    // A walk watches a directory before its subdirectories, so only a watched one has watched ones below.
    if (this.watchers.has(path)) this.dropUnder(path);
  }

  private dropUnder(path: string): void {
    this.unwatch(path);
    const prefix = `${path}/`;
    for (const rel of this.watchers.keys()) if (rel.startsWith(prefix)) this.unwatch(rel);
  }

  private unwatch(rel: string): void {
    const watcher = this.watchers.get(rel);
    this.watchers.delete(rel);
    try {
      watcher?.close();
    } catch {
      // already closed
    }
  }

  private ensureMarker(): boolean {
    if (this.marker !== undefined) return true;
    this.marker = QueueMarker.open(this.gitdir, () => this.invalidate('the marker watcher failed'));
    return this.marker !== undefined;
  }

  /** True once every event queued before now was delivered (the marker's own event arrived in time). */
  private sync(): Promise<boolean> {
    const marker = this.marker;
    if (marker === undefined) return Promise.resolve(false);
    this.markers += 1;
    return marker.sync(`m${process.pid}-${this.markers}`, this.syncTimeoutMs);
  }

  private readExcludeKey(): string {
    const stats = nodeFs.statSync(join(this.gitdir, 'info', 'exclude'), { throwIfNoEntry: false });
    return stats === undefined ? 'missing' : `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  }
}
