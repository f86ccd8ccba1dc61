import { EntryKind } from './dir-listing.js';
import { foreignCode } from './errors.js';
import { readIndexFile } from './index-file.js';
import type { IndexState } from './index-state.js';
import { PathSet } from './path-set.js';
import { lstatOrUndefined, onNodeFs } from './fs-ops.js';
import { absolute, parentOf } from './paths.js';
import type { ChangeJournal, StructureMark } from './change-journal.js';
import { perRepo, type Repo } from './repo.js';
import { isIgnored, listingsOf } from './worktree-walk.js';

/** The subdirectories of `dir` (relative, `'.'` for the root), `.git` left out. */
async function subdirectories(repo: Repo, dir: string): Promise<string[]> {
  if (onNodeFs(repo)) {
    // The walk's listings (git's untracked cache): one lstat per unchanged directory, no readdir.
    const entries = listingsOf(repo).list(dir, absolute(repo.dir, dir)) ?? [];
    const out: string[] = [];
    for (const entry of entries) {
      if (entry.kind === EntryKind.Directory) out.push(entry.path);
      else if (entry.kind === EntryKind.Other && (await lstatOrUndefined(repo, entry.path))?.isDirectory()) {
        out.push(entry.path);
      }
    }
    return out;
  }
  let names: readonly unknown[];
  try {
    names = await repo.fs.promises.readdir(absolute(repo.dir, dir));
  } catch (error) {
    const code = foreignCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
  const out: string[] = [];
  for (const raw of names) {
    const name = String(raw);
    if (name === '.git') continue;
    const path = dir === '.' ? name : `${dir}/${name}`;
    if ((await lstatOrUndefined(repo, path))?.isDirectory()) out.push(path);
  }
  return out;
}

/** The index's paths as a {@link PathSet}, made again only when the index's set of paths changed. */
const trackedOf = perRepo(() => ({ state: undefined as IndexState | undefined, version: -1, set: new PathSet([]) }));

async function trackedPaths(repo: Repo): Promise<PathSet> {
  const index = await readIndexFile(repo);
  if (index === undefined) return new PathSet([]);
  const kept = trackedOf(repo);
  // A new index state with the same paths (a content or stat update) keeps its version (issue 31:
  // rebuilding the set per state was 100,000 entries twice per iteration).
  if (kept.version !== index.pathsVersion) {
    kept.state = index;
    kept.version = index.pathsVersion;
    kept.set = new PathSet(index.entries.keys());
  }
  return kept.set;
}

/**
 * The directories of the working tree that are not ignored (relative paths; `.git` and ignored
 * directories are not entered), within the directory `bases` when given (files among them are
 * skipped; the bases themselves are included). A directory above a tracked file is entered
 * without asking the ignore rules (as the scan's walk does).
 */
export async function listDirectories(
  repo: Repo,
  bases: readonly string[] | undefined,
  onDirectory: (dir: string) => void = () => undefined,
): Promise<Set<string>> {
  const tracked = await trackedPaths(repo);
  const found = new Set<string>();
  const visit = async (dir: string): Promise<void> => {
    onDirectory(dir);
    for (const sub of await subdirectories(repo, dir)) {
      if (!tracked.worthWalking(sub) && (await isIgnored(repo, sub))) continue;
      found.add(sub);
      await visit(sub);
    }
  };
  if (bases === undefined) {
    await visit('.');
    return found;
  }
  for (const base of bases) {
    const path = base.replace(/\/+$/, '');
    if (path === '' || path === '.') {
      await visit('.');
      continue;
    }
    const isDirectory = (await lstatOrUndefined(repo, path))?.isDirectory() ?? false;
    if (isDirectory && (tracked.worthWalking(path) || !(await isIgnored(repo, path)))) {
      found.add(path);
      await visit(path);
    }
  }
  return found;
}

const depth = (path: string): number => path.split('/').length;

/**
 * Removes the directories of `now` that are not in `before` and are empty (created since it was
 * listed: git keeps no empty directory, so a reset leaves them), deepest first, so that a new
 * directory holding only new empty ones goes too. Only `rmdir`: a directory that holds anything
 * (an ignored file, a directory that existed before) stays.
 *
 * @returns the directories removed, sorted.
 * @throws the fs error of an `rmdir` that fails for another reason than "not empty" or "gone".
 */
export async function removeNewEmptyDirectories(
  repo: Repo,
  before: ReadonlySet<string>,
  now: ReadonlySet<string>,
): Promise<string[]> {
  const fresh = [...now].filter((dir) => !before.has(dir));
  fresh.sort((a, b) => depth(b) - depth(a) || (a < b ? 1 : a > b ? -1 : 0));
  const removed: string[] = [];
  for (const dir of fresh) {
    try {
      await repo.fs.promises.rmdir(absolute(repo.dir, dir));
      removed.push(dir);
    } catch (error) {
      const code = foreignCode(error);
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
  }
  return removed.sort();
}

/**
 * Brings `dirs` (the not ignored directories, closed under parents) up to date with `paths`, the
 * entries created, removed or renamed since it was right: each is looked at now, and a directory
 * found is entered (its subdirectories may have come before any watch on it).
 */
async function applyStructure(
  repo: Repo,
  dirs: Set<string>,
  paths: readonly string[],
  onDirectory: (dir: string) => void,
): Promise<void> {
  const tracked = await trackedPaths(repo);
  for (const path of new Set(paths)) {
    if (dirs.has(path)) {
      dirs.delete(path);
      const prefix = `${path}/`;
      for (const dir of dirs) if (dir.startsWith(prefix)) dirs.delete(dir);
    }
    const parent = parentOf(path);
    if (parent !== '.' && !dirs.has(parent)) continue; // under an ignored or a gone directory
    if (!((await lstatOrUndefined(repo, path))?.isDirectory() ?? false)) continue;
    if (!tracked.worthWalking(path) && (await isIgnored(repo, path))) continue;
    dirs.add(path);
    const visit = async (dir: string): Promise<void> => {
      onDirectory(dir);
      for (const sub of await subdirectories(repo, dir)) {
        if (!tracked.worthWalking(sub) && (await isIgnored(repo, sub))) continue;
        dirs.add(sub);
        await visit(sub);
      }
    };
    await visit(path);
  }
}

/**
 * The directories each open checkpoint saw (by iteration, with its id; at most 64 kept), so that a
 * revert to that checkpoint removes the empty directories its candidate created (git keeps none).
 * With the change journal (`watch`, whole tree) the set is listed once and then kept up to date
 * from the paths created, removed or renamed since (issue 31: one `lstat` per directory twice per
 * iteration was the last walk of an iteration); whenever the journal may have missed one, it is
 * listed again.
 */
export function createDirectoryTracker(
  repo: Repo,
  bases: readonly string[] | undefined,
  journal: () => ChangeJournal | undefined = () => undefined,
) {
  const seen = new Map<number, { id: string; dirs: ReadonlySet<string> }>();
  /** The directory set as of the journal's `mark`. */
  let known: { dirs: Set<string>; mark: StructureMark } | undefined;
  const current = async (): Promise<Set<string>> => {
    const j = bases === undefined && onNodeFs(repo) ? journal() : undefined;
    // Every directory in the set is watched (before it is listed), so its later changes are events.
    const watch = (dir: string): void => j?.watch(dir, absolute(repo.dir, dir));
    if (j !== undefined && known !== undefined) {
      const since = await j.structureSince(known.mark);
      if (since !== undefined) {
        const dirs = new Set(known.dirs);
        await applyStructure(repo, dirs, since.paths, watch);
        known = { dirs, mark: since.mark };
        return dirs;
      }
    }
    // The mark before the listing: a change during it is applied again next time (idempotent).
    const mark = j === undefined ? undefined : await j.structureMark();
    const dirs = await listDirectories(repo, bases, watch);
    known = mark === undefined ? undefined : { dirs, mark };
    return dirs;
  };
  return {
    /** Records the directories at checkpoint `iteration` (commit `id`). */
    checkpointed: async (iteration: number, id: string): Promise<void> => {
      seen.delete(iteration);
      seen.set(iteration, { id, dirs: await current() });
      if (seen.size > 64) seen.delete(seen.keys().next().value!);
    },
    /** A kept checkpoint has nothing to clean. */
    kept: (iteration: number): void => void seen.delete(iteration),
    /** After a revert to checkpoint `iteration` (`id`): removes the new empty directories; returns them. */
    reverted: async (iteration: number, id: string): Promise<string[]> => {
      const at = seen.get(iteration);
      if (at === undefined || at.id !== id) return [];
      const now = await current();
      const removed = await removeNewEmptyDirectories(repo, at.dirs, now);
      for (const dir of removed) known?.dirs.delete(dir);
      return removed;
    },
  };
}
