import { EntryKind } from './dir-listing.js';
import { foreignCode } from './errors.js';
import { readIndexFile } from './index-file.js';
import type { IndexState } from './index-state.js';
import { PathSet } from './path-set.js';
import { lstatOrUndefined, onNodeFs } from './fs-ops.js';
import { absolute } from './paths.js';
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
export async function listDirectories(repo: Repo, bases: readonly string[] | undefined): Promise<Set<string>> {
  const tracked = await trackedPaths(repo);
  const found = new Set<string>();
  const visit = async (dir: string): Promise<void> => {
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
 * Removes the empty directories that are not in `before` (created since it was listed: git keeps
 * no empty directory, so a reset leaves them), deepest first, so that a new directory holding only
 * new empty ones goes too. Only `rmdir`: a directory that holds anything (an ignored file, a
 * directory that existed before) stays. Not ignored ones only, within `bases`.
 *
 * @returns the directories removed, sorted.
 * @throws the fs error of an `rmdir` that fails for another reason than "not empty" or "gone".
 */
export async function removeNewEmptyDirectories(
  repo: Repo,
  before: ReadonlySet<string>,
  bases: readonly string[] | undefined,
): Promise<string[]> {
  const fresh = [...(await listDirectories(repo, bases))].filter((dir) => !before.has(dir));
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
 * The directories each open checkpoint saw (by iteration, with its id; at most 64 kept), so that a
 * revert to that checkpoint removes the empty directories its candidate created (git keeps none).
 */
export function createDirectoryTracker(repo: Repo, bases: readonly string[] | undefined) {
  const seen = new Map<number, { id: string; dirs: Set<string> }>();
  return {
    /** Records the directories at checkpoint `iteration` (commit `id`). */
    checkpointed: async (iteration: number, id: string): Promise<void> => {
      seen.delete(iteration);
      seen.set(iteration, { id, dirs: await listDirectories(repo, bases) });
      if (seen.size > 64) seen.delete(seen.keys().next().value!);
    },
    /** A kept checkpoint has nothing to clean. */
    kept: (iteration: number): void => void seen.delete(iteration),
    /** After a revert to checkpoint `iteration` (`id`): removes the new empty directories; returns them. */
    reverted: async (iteration: number, id: string): Promise<string[]> => {
      const at = seen.get(iteration);
      return at !== undefined && at.id === id ? removeNewEmptyDirectories(repo, at.dirs, bases) : [];
    },
  };
}
