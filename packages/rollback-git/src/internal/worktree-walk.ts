import nodeFs from 'node:fs';
import git from 'isomorphic-git';
import type { GitFsStats } from '../git-fs.js';
import { DirectoryListings, EntryKind } from './dir-listing.js';
import { foreignCode } from './errors.js';
import { IgnoreCache } from './ignore-cache.js';
import { gitMode, lstatOrUndefined, onNodeFs } from './fs-ops.js';
import type { PathSet } from './path-set.js';
import { absolute } from './paths.js';
import type { ChangeJournal } from './change-journal.js';
import { perRepo, type Repo } from './repo.js';
import { RawStats } from './raw-stats.js';
import { STAT_FIELDS, statPool } from './stat-pool.js';
import { WalkResult } from './walk-result.js';

/**
 * `repo`'s ignore cache (see {@link IgnoreCache}), made on first use with clock `now` (ms since the epoch; tests inject
 * one).
 */
export const ignoreCacheOf = perRepo((now?: () => number) => new IgnoreCache(now));

/** True when `path` is ignored (`.gitignore`, `.git/info/exclude`); kept while those files are unchanged. */
export const isIgnored = (repo: Repo, path: string): Promise<boolean> =>
  ignoreCacheOf(repo).isIgnored(repo, path, () =>
    git.isIgnored({ fs: repo.gitFs, dir: repo.dir, gitdir: repo.gitdir, filepath: path }),
  );

/** What a whole-tree walk must know: the tracked paths (never ignored) and the submodule paths (not entered). */
export interface WalkScope {
  /** Paths in the commit or the index, and the directories above them. */
  readonly tracked: PathSet;
  /** Submodule (gitlink) paths: neither entered nor reported. */
  readonly gitlinks: ReadonlySet<string>;
  /**
   * The index's paths in index order, for a second thread to `lstat` part of them while the walk
   * runs (`key` names this list; `position` is each path's place in it). Optional.
   */
  readonly prefetch?: {
    readonly key: string;
    readonly paths: readonly string[];
    readonly position: ReadonlyMap<string, number>;
  };
}

/**
 * The listings of `repo`'s working tree kept between walks, made on first use with clock `now`
 * (ms since the epoch; tests inject one, see {@link DirectoryListings}).
 */
export const listingsOf = perRepo((now?: () => number) => new DirectoryListings(now));

/** Below this many index entries the walk stats everything itself (a worker round trip costs more). */
const PREFETCH_MIN = 2000;
/**
 * The share of the index's paths the worker stats, adapted after every walk so that both threads
 * finish together (the walk's own thread also lists directories and classifies every file, and
 * how fast each thread goes depends on the machine and its load). Starts at 0.7.
 */
let workerShare = 0.7;

/**
 * The next walk's worker share from this one's times: the share at which both threads would have
 * taken equally long, if each thread's time were proportional to its share, averaged with the
 * current share (damping: the walk's thread also has work that does not move), kept in [0.2, 0.9].
 */
export function nextWorkerShare(share: number, mainMs: number, workerMs: number): number {
  if (!(mainMs > 0) || !(workerMs > 0)) return share;
  const perMain = mainMs / (1 - share);
  const perWorker = workerMs / share;
  const balanced = perMain / (perMain + perWorker);
  return Math.min(0.9, Math.max(0.2, (share + balanced) / 2));
}

/** `lstat` of `abs` on `node:fs` without following a link; `undefined` when it (or a parent) is absent. */
export function lstatNode(abs: string): nodeFs.Stats | undefined {
  try {
    return nodeFs.lstatSync(abs, { throwIfNoEntry: false });
  } catch (error) {
    if (foreignCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Decides, for a file the walk found, whether its stats match its index entry (git's stat
 * cache): a matching file is only counted and marked (see {@link WalkResult}), so the walk keeps
 * no `Stats` object and no map entry for the many unchanged files (issue 13: they were most of the
 * garbage and of the map work a scan made).
 */
export type StatClassifier = (path: string, stats: GitFsStats) => boolean;

/**
 * The walk on `node:fs`: one synchronous `lstat` per directory, and its `readdir` (with file
 * types) only when the directory's stat data changed since the last walk read it (see
 * {@link DirectoryListings}), and one synchronous `lstat` per file (a call answered from the inode
 * and dentry caches costs less than the promise and thread-pool hop around it), directories in
 * order; only the ignore check of an untracked path awaits. No file is read.
 */
async function walkNode(
  repo: Repo,
  scope: WalkScope,
  classify: StatClassifier | undefined,
  out: WalkResult,
  journal?: ChangeJournal,
): Promise<void> {
  const pre = scope.prefetch;
  const pool = pre !== undefined && pre.paths.length >= PREFETCH_MIN ? statPool() : undefined;
  const started = performance.now();
  const split = pre === undefined || pool === undefined ? Infinity : Math.floor(pre.paths.length * (1 - workerShare));
  const pending =
    pool === undefined || pre === undefined
      ? undefined
      : pool.stat(pre.key, repo.dir, pre.paths, split, pre.paths.length);
  const listings = listingsOf(repo);
  listings.beginWalk();
  /** Files the listings hold whose `lstat` the worker makes: path and place in the worker's list. */
  const deferredPaths: string[] = [];
  const deferredAt: number[] = [];
  const visit = async (dir: string): Promise<void> => {
    const absDir = absolute(repo.dir, dir);
    journal?.watch(dir, absDir); // before the listing: a change after it is an event, one before it is seen
    const entries = listings.list(dir, absDir);
    if (entries === undefined) return; // removed while walked
    const subdirs: string[] = [];
    for (const entry of entries) {
      const path = entry.path;
      if (scope.gitlinks.size > 0 && scope.gitlinks.has(path)) continue;
      if (entry.kind === EntryKind.Directory) {
        subdirs.push(path);
        continue;
      }
      if (pre !== undefined && entry.positionKey !== pre.key) {
        entry.position = pre.position.get(path);
        entry.positionKey = pre.key;
      }
      const at = pre === undefined ? undefined : entry.position;
      if (pending !== undefined && entry.kind === EntryKind.File) {
        if (at !== undefined && at >= split) {
          deferredPaths.push(path);
          deferredAt.push(at - split);
          continue;
        }
      }
      const stats = lstatNode(`${absDir}/${entry.name}`);
      if (stats === undefined) continue;
      if (stats.isDirectory())
        subdirs.push(path); // a file type the readdir did not know, or a directory since
      else if (gitMode(stats) !== undefined) {
        // A file the classifier accepts has an index entry, so it is tracked: no ignore check.
        if (classify?.(path, stats)) out.addClean(path, at);
        else if (scope.tracked.has(path) || !(await isIgnored(repo, path))) out.dirty.set(path, stats);
      }
    }
    for (const path of subdirs) {
      if (!scope.tracked.worthWalking(path) && (await isIgnored(repo, path))) continue;
      await visit(path);
    }
  };
  await visit('.');
  if (pending === undefined) return;
  // The worker's stats of the files the readdirs found (a file it found missing vanished since).
  // Every deferred path is in the index, so none needs an ignore check; one view is reused to
  // classify, and only a file that is not clean keeps an object of its own.
  const mainMs = performance.now() - started;
  const reply = await pending;
  const raw = reply?.out;
  if (reply !== undefined) workerShare = nextWorkerShare(workerShare, mainMs, reply.ms);
  const view = new RawStats();
  for (let i = 0; i < deferredPaths.length; i += 1) {
    const path = deferredPaths[i]!;
    const k = deferredAt[i]!;
    let stats: GitFsStats | undefined;
    if (raw === undefined) stats = lstatNode(absolute(repo.dir, path));
    else if (raw[k * STAT_FIELDS] !== 0) stats = view.at(raw, k * STAT_FIELDS);
    if (stats === undefined) continue; // vanished since the readdir
    if (stats.isDirectory())
      await visit(path); // became a directory since the readdir
    else if (gitMode(stats) === undefined) continue;
    else if (classify?.(path, stats)) out.addClean(path, split + k);
    else out.dirty.set(path, raw === undefined ? stats : new RawStats(raw, k * STAT_FIELDS));
  }
}

/** The walk on any other fs (memfs, a wrapped fs): `readdir`, then `lstat` every entry through `repo.fs`. */
async function walkFs(
  repo: Repo,
  scope: WalkScope,
  classify: StatClassifier | undefined,
  out: WalkResult,
): Promise<void> {
  const visit = async (dir: string): Promise<void> => {
    const names = await repo.fs.promises.readdir(absolute(repo.dir, dir));
    await Promise.all(
      names.map(async (raw) => {
        const name = String(raw);
        if (name === '.git') return;
        const path = dir === '.' ? name : `${dir}/${name}`;
        const stats = await lstatOrUndefined(repo, path);
        if (stats === undefined || scope.gitlinks.has(path)) return;
        if (stats.isDirectory()) {
          if (!scope.tracked.worthWalking(path) && (await isIgnored(repo, path))) return;
          await visit(path);
        } else if (gitMode(stats) !== undefined) {
          if (!scope.tracked.has(path) && (await isIgnored(repo, path))) return;
          if (classify?.(path, stats)) out.addClean(path, scope.prefetch?.position.get(path));
          else out.dirty.set(path, stats);
        }
      }),
    );
  };
  await visit('.');
}

/**
 * The `lstat` of every file and symbolic link of the working tree (not `.git`, not submodules,
 * not ignored untracked files, not inside ignored untracked directories), by relative path, in
 * {@link WalkResult}'s `dirty`; a file `classify` accepts is only counted and marked as clean
 * instead. Nothing is hashed: the caller compares the stats with the index (git's stat cache).
 */
export async function walkWorktree(
  repo: Repo,
  scope: WalkScope,
  classify?: StatClassifier,
  journal?: ChangeJournal,
): Promise<WalkResult> {
  const out = new WalkResult(scope.prefetch?.position);
  await (onNodeFs(repo) ? walkNode(repo, scope, classify, out, journal) : walkFs(repo, scope, classify, out));
  return out;
}
