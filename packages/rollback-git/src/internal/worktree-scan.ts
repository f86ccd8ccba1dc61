import git, { STAGE, TREE, WORKDIR, type WalkerEntry } from 'isomorphic-git';
import type { GitFsStats } from '../git-fs.js';
import { inChunks } from './chunks.js';
import { gitMode, onNodeFs, readWorktreeBlob } from './fs-ops.js';
import { readIndexFile, type IndexEntry, type IndexSnapshot } from './index-file.js';
import { keptIndexKey } from './index-state.js';
import { updateIndex, type StagedFile } from './index-update.js';
import { PathSet } from './path-set.js';
import { gitArgs, type Repo } from './repo.js';
import { headBlobs } from './head-blobs.js';
import { walkTouched } from './walk-touched.js';
import { isIgnored, walkWorktree, type WalkScope } from './worktree-walk.js';
import type { WalkResult } from './walk-result.js';
import { journalOf } from './journals.js';
import { indexReads } from './index-state.js';
import { blobOf, sameBlob, type BlobEntry } from './tree-diff.js';
import { scanPaths } from './path-scan.js';

/** A working-tree file: its mode, and its oid when it was worth computing. */
export interface WorkdirEntry {
  /** The blob oid; `undefined` when not computed (an untracked file in a whole-tree scan). */
  readonly oid: string | undefined;
  /** The git mode from `lstat`. */
  readonly mode: number;
}

/** One path where the commit, the index and the working tree do not all agree. */
export interface WorktreeChange {
  /** Relative path, `/`-separated. */
  readonly path: string;
  /** The blob in the commit scanned against. */
  readonly head: BlobEntry | undefined;
  /** The working-tree file (`undefined` when missing, or a directory now stands there). */
  readonly workdir: WorkdirEntry | undefined;
  /** Whether the index has an entry for the path (a path scan assumes it does when the commit has). */
  readonly indexed: boolean;
}

/** Times closer than this (1 microsecond) are equal: Node reports milliseconds as a double. */
const STAT_TOLERANCE_MS = 0.001;
const MODE_GITLINK = 0o160000;

/**
 * Whole-tree scan through isomorphic-git: a walk of the commit, the working tree and the index
 * like `statusMatrix`, but a mode-only change counts too. Used when `.git/index` is in a format
 * {@link readIndexFile} does not read.
 */
async function scanWholeTreeWalk(repo: Repo, headOid: string): Promise<WorktreeChange[]> {
  const result: unknown = await git.walk({
    ...gitArgs(repo),
    trees: [TREE({ ref: headOid }), WORKDIR(), STAGE()],
    map: async (path: string, [h, w, s]: Array<WalkerEntry | null>) => {
      if (path === '.') return undefined;
      const headEntry = h ?? null;
      const workEntry = w ?? null;
      const stageEntry = s ?? null;
      if (headEntry === null && stageEntry === null && workEntry !== null && (await isIgnored(repo, path))) return null;
      const head = await blobOf(headEntry);
      const stage = await blobOf(stageEntry);
      let workdir: WorkdirEntry | undefined;
      if (workEntry !== null && (await workEntry.type()) === 'blob') {
        const mode = await workEntry.mode();
        // An untracked file differs whatever its content: do not read it.
        const oid = head === undefined && stage === undefined ? undefined : await workEntry.oid();
        workdir = { oid, mode };
      }
      if (head === undefined && stage === undefined && workdir === undefined) return undefined; // a directory: descend
      if (sameBlob(head, stage) && sameBlob(head, workdir)) return undefined;
      const change: WorktreeChange = { path, head, workdir, indexed: stage !== undefined };
      return change;
    },
  });
  return Array.isArray(result) ? (result as WorktreeChange[]) : [];
}

/** True when the working-tree stats still match the index entry, so its oid can be trusted. */
function statsMatch(entry: IndexEntry, stats: GitFsStats, indexMtimeMs: number): boolean {
  const mtimeMs = Number(stats.mtimeMs);
  return (
    Number(stats.size) % 2 ** 32 === entry.size &&
    Number(stats.ino) % 2 ** 32 === entry.ino &&
    Math.abs(mtimeMs - entry.mtimeMs) < STAT_TOLERANCE_MS &&
    Math.abs(Number(stats.ctimeMs) - entry.ctimeMs) < STAT_TOLERANCE_MS &&
    // Racy git: a file changed in the same instant the index was written cannot be trusted.
    mtimeMs < indexMtimeMs
  );
}

/** The walk scope of the last (index, commit) pair scanned: both are immutable snapshots. */
const scopes = new WeakMap<IndexSnapshot, { readonly headOid: string; readonly scope: WalkScope }>();
/**
 * The walk scope of an index that equals the commit scanned against, by its path set (kept across stat-only rewrites).
 */
const matchedScopes = new WeakMap<IndexSnapshot['entries'], { readonly version: number; readonly scope: WalkScope }>();

/** The index's paths for the walk's second thread, named by repository and path-set version. */
function prefetchOf(repo: Repo, index: IndexSnapshot): WalkScope['prefetch'] {
  const paths = [...index.entries.keys()];
  return { key: `${repo.dir}\0${index.pathsVersion}`, paths, position: new Map(paths.map((path, i) => [path, i])) };
}

function gitlinksOf(index: IndexSnapshot): Set<string> {
  const gitlinks = new Set<string>();
  for (const e of index.entries.values()) if (e.mode === MODE_GITLINK) gitlinks.add(e.path);
  return gitlinks;
}

function walkScope(
  repo: Repo,
  index: IndexSnapshot,
  headOid: string,
  head: ReadonlyMap<string, BlobEntry> | undefined,
): WalkScope {
  if (head === undefined) {
    const kept = matchedScopes.get(index.entries);
    if (kept?.version === index.pathsVersion) return kept.scope;
    const scope = {
      tracked: new PathSet(index.entries.keys()),
      gitlinks: gitlinksOf(index),
      prefetch: prefetchOf(repo, index),
    };
    matchedScopes.set(index.entries, { version: index.pathsVersion, scope });
    return scope;
  }
  const kept = scopes.get(index);
  if (kept?.headOid === headOid) return kept.scope;
  const scope = {
    tracked: new PathSet([...head.keys(), ...index.entries.keys(), ...index.unmerged]),
    gitlinks: gitlinksOf(index),
    prefetch: prefetchOf(repo, index),
  };
  scopes.set(index, { headOid, scope });
  return scope;
}

/** The index (by its stat key) each whole-tree scan result was computed against. */
const basisOf = new WeakMap<readonly WorktreeChange[], string>();

/**
 * The stat key of the index a whole-tree scan read (`undefined` for a path scan or the
 * isomorphic-git walk): `updateIndex` may claim the index equals a commit only while it is
 * still that index.
 */
export function indexBasisOf(changes: readonly WorktreeChange[] | undefined): string | undefined {
  return changes === undefined ? undefined : basisOf.get(changes);
}

/**
 * Whole-tree scan, the way `git status` does it: read the index (not again while the file is
 * unchanged), walk the working tree with `readdir` + `lstat` only, and hash only the files whose
 * size, inode or times (within a microsecond) differ from their index entry, or whose mtime is not
 * before the index file's (racy git); then compare with the commit's blobs (kept per commit), or,
 * when the index is known to equal the commit (`IndexState.matches`: our own last write or an
 * earlier scan established it), with the index entries themselves, with no blob map at all.
 * Untracked files count unless ignored (`.gitignore`, `.git/info/exclude`); ignored directories
 * are not entered. Index entries whose stats went stale while the content stayed the same are
 * refreshed (one index write; from `deferStagingAt` bytes in memory, written with the next write),
 * so a scan after that write trusts them. Cost: one `lstat` per file, and hashing only with what
 * changed.
 */
async function scanWholeTree(repo: Repo, headOid: string, index: IndexSnapshot): Promise<WorktreeChange[]> {
  const matched = index.matches === headOid && index.unmerged.size === 0;
  const head = matched ? undefined : await headBlobs(repo, headOid);
  const scope = walkScope(repo, index, headOid, head);
  const { gitlinks } = scope;
  const classify = (path: string, stats: GitFsStats): boolean => {
    const entry = index.entries.get(path);
    return entry !== undefined && entry.mode === gitMode(stats) && statsMatch(entry, stats, index.fileMtimeMs);
  };
  const journal = onNodeFs(repo) ? journalOf(repo) : undefined;
  const taken = journal === undefined ? undefined : await journal.take(indexReads(repo));
  let work: WalkResult;
  if (journal !== undefined && taken !== undefined) {
    const has = (path: string): boolean => index.entries.has(path) && !(gitlinks.size > 0 && gitlinks.has(path));
    const counted = { has, count: index.entries.size - gitlinks.size, paths: () => index.entries.keys() };
    work = await walkTouched(repo, scope, classify, taken.paths, counted, journal);
  } else {
    journal?.beginWalk(indexReads(repo));
    work = await walkWorktree(repo, scope, classify, journal);
  }
  const headOf = (path: string): BlobEntry | undefined => {
    if (head !== undefined) return head.get(path);
    const entry = index.entries.get(path);
    return entry === undefined || entry.mode === MODE_GITLINK ? undefined : { oid: entry.oid, mode: entry.mode };
  };

  const changes: WorktreeChange[] = [];
  const suspects: string[] = [];
  // Whether the index equals the commit (every path, oid and mode): then the next scan needs no blob map.
  let agree = head === undefined || (index.unmerged.size === 0 && index.entries.size === head.size);
  if (head === undefined) {
    // The common case, decided without a promise: the walk found the file unchanged by its stats.
    let dirtyIndexed = 0;
    for (const path of work.dirty.keys()) if (index.entries.has(path)) dirtyIndexed += 1;
    if (work.cleanCount + dirtyIndexed + gitlinks.size === index.entries.size) {
      // Every index path was found (clean, or among the dirty ones): nothing was deleted.
      for (const path of work.dirty.keys()) suspects.push(path);
    } else {
      for (const path of index.entries.keys())
        if (!work.isClean(path) && !(gitlinks.size > 0 && gitlinks.has(path))) suspects.push(path);
      for (const path of work.dirty.keys()) if (!index.entries.has(path)) suspects.push(path);
    }
  } else {
    const consider = (path: string): void => {
      if (gitlinks.has(path)) return;
      const inHead = head.get(path);
      const entry = index.entries.get(path);
      if (agree && (entry === undefined || !sameBlob(inHead, entry))) agree = false;
      // The common case, decided without a promise: commit, index and stat cache agree.
      if (
        entry !== undefined &&
        inHead !== undefined &&
        work.isClean(path) &&
        !index.unmerged.has(path) &&
        sameBlob(inHead, entry)
      )
        return;
      suspects.push(path);
    };
    for (const path of head.keys()) consider(path);
    for (const path of index.entries.keys()) if (!head.has(path)) consider(path);
    for (const path of index.unmerged) if (!head.has(path) && !index.entries.has(path)) consider(path);
    for (const path of work.dirty.keys())
      if (!head.has(path) && !index.entries.has(path) && !index.unmerged.has(path)) consider(path);
  }

  const stale: StagedFile[] = [];
  await inChunks(suspects, async (path) => {
    const inHead = headOf(path);
    const entry = index.entries.get(path);
    const stage = entry === undefined ? undefined : { oid: entry.oid, mode: entry.mode };
    const found = work.dirty.get(path);
    let workdir: WorkdirEntry | undefined;
    if (found === undefined && work.isClean(path)) {
      workdir = stage; // the stats match the index entry (classified by the walk)
    } else if (found !== undefined) {
      const mode = gitMode(found) as number;
      if (inHead === undefined && entry === undefined) {
        workdir = { oid: undefined, mode }; // untracked: differs whatever its content
      } else {
        const actual = await readWorktreeBlob(repo, path);
        workdir = actual === undefined || actual === 'other' ? undefined : actual;
        if (actual !== undefined && actual !== 'other' && sameBlob(stage, actual))
          stale.push({ path, blob: { oid: actual.oid, mode: actual.mode }, stats: actual.stats });
      }
    }
    if (!index.unmerged.has(path) && sameBlob(inHead, stage) && sameBlob(inHead, workdir)) return;
    changes.push({ path, head: inHead, workdir, indexed: entry !== undefined || index.unmerged.has(path) });
  });
  if (agree && gitlinks.size === 0) index.matches = headOid;
  // A stat-only refresh of our own keeps what this scan saw: the rewritten index is its basis.
  let basis: string | undefined = index.key;
  if (stale.length > 0) {
    if ((await updateIndex(repo, stale, [], { defer: true })) === undefined) {
      await git.add({ ...gitArgs(repo), filepath: stale.map((file) => file.path), force: true });
      basis = undefined;
    } else basis = keptIndexKey(repo);
  }
  const sorted = changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // What differs now is examined again by the next scan even if no event touches it.
  journal?.note(sorted.map((change) => change.path));
  if (basis !== undefined) basisOf.set(sorted, basis);
  return sorted;
}

/**
 * Every path where commit `headOid` and the working tree (and, in a whole-tree scan, the index)
 * disagree, in content or in mode. With `bases`, only those paths (files or directories) are
 * looked at: the fast path. Untracked files count unless ignored.
 */
export async function scanWorktree(
  repo: Repo,
  headOid: string,
  bases: readonly string[] | undefined,
): Promise<WorktreeChange[]> {
  if (bases !== undefined && !bases.includes('.')) return scanPaths(repo, headOid, bases);
  const index = await readIndexFile(repo);
  return index === undefined ? scanWholeTreeWalk(repo, headOid) : scanWholeTree(repo, headOid, index);
}

/**
 * The untracked, not ignored files of the working tree against commit `headOid` (within `bases`
 * when given): the user's own files that `allowDirty` must keep out of candidate commits.
 */
export async function untrackedPaths(
  repo: Repo,
  headOid: string,
  bases: readonly string[] | undefined,
): Promise<string[]> {
  return (await scanWorktree(repo, headOid, bases))
    .filter((change) => change.head === undefined && !change.indexed && change.workdir !== undefined)
    .map((change) => change.path);
}

/** A git exclude pattern matching exactly `path` (anchored at the root, special characters escaped). */
export function exactExcludePattern(path: string): string {
  return `/${path.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ $/, '\\ ')}`;
}
