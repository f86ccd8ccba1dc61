import type { GitFsStats } from '../git-fs.js';
import type { ChangeJournal } from './change-journal.js';
import { gitMode } from './fs-ops.js';
import { absolute, parentOf } from './paths.js';
import type { Repo } from './repo.js';
import { WalkResult } from './walk-result.js';
import { isIgnored, listingsOf, lstatNode, type StatClassifier, type WalkScope } from './worktree-walk.js';

/**
 * The walk narrowed to what the change journal reported (issue 31): an `lstat` of each touched
 * path, and a walk (with watches) of each touched path that is a directory now; every other file
 * of the index counts as clean without being looked at (its stats matched at the last scan and
 * no event touched it since). Paths inside `.git`, submodules and ignored untracked paths are
 * left out as in {@link walkWorktree}.
 *
 * @param indexed Whether a path has an index entry (not a submodule): what an unexamined path is.
 * @param indexCount How many index entries are not submodules.
 */
export async function walkTouched(
  repo: Repo,
  scope: WalkScope,
  classify: StatClassifier,
  touched: ReadonlySet<string>,
  index: { readonly has: (path: string) => boolean; readonly count: number; readonly paths: () => Iterable<string> },
  journal: ChangeJournal,
): Promise<WalkResult> {
  const out = new WalkResult(undefined);
  const listings = listingsOf(repo);
  /** Touched paths that are directories on the way to tracked paths: every index path under one is examined. */
  const prefixes = new Set<string>();
  for (const path of touched) if (scope.tracked.worthWalking(path) && !scope.tracked.has(path)) prefixes.add(path);
  const examined = (path: string): boolean => {
    if (touched.has(path)) return true;
    if (prefixes.size === 0) return false;
    for (let dir = parentOf(path); dir !== '.'; dir = parentOf(dir)) if (prefixes.has(dir)) return true;
    return false;
  };
  const addFile = async (path: string, stats: GitFsStats): Promise<void> => {
    if (gitMode(stats) === undefined) return;
    if (classify(path, stats)) out.addClean(path, undefined);
    else if (scope.tracked.has(path) || !(await isIgnored(repo, path))) out.dirty.set(path, stats);
  };
  const visit = async (dir: string): Promise<void> => {
    const absDir = absolute(repo.dir, dir);
    journal.watch(dir, absDir);
    const entries = listings.list(dir, absDir);
    if (entries === undefined) return;
    for (const entry of entries) {
      if (scope.gitlinks.size > 0 && scope.gitlinks.has(entry.path)) continue;
      const stats = lstatNode(`${absDir}/${entry.name}`);
      if (stats === undefined) continue;
      if (stats.isDirectory()) {
        if (scope.tracked.worthWalking(entry.path) || !(await isIgnored(repo, entry.path))) await visit(entry.path);
      } else await addFile(entry.path, stats);
    }
  };
  // Directories first (a touched path under a touched directory is examined by its walk, once).
  const files = new Map<string, GitFsStats>();
  const dirs: string[] = [];
  for (const path of touched) {
    if (path === '.git' || path.startsWith('.git/') || path.includes('/.git/') || path.endsWith('/.git')) continue;
    if (scope.gitlinks.size > 0 && scope.gitlinks.has(path)) continue;
    const stats = lstatNode(absolute(repo.dir, path));
    if (stats === undefined) continue; // gone: an index path not found counts as deleted
    if (!stats.isDirectory()) files.set(path, stats);
    else if (scope.tracked.worthWalking(path) || !(await isIgnored(repo, path))) dirs.push(path);
  }
  const walked = new Set(dirs);
  const under = (path: string): boolean => {
    for (let dir = parentOf(path); dir !== '.'; dir = parentOf(dir)) if (walked.has(dir)) return true;
    return false;
  };
  for (const dir of dirs) if (!under(dir)) await visit(dir);
  for (const [path, stats] of files) if (walked.size === 0 || !under(path)) await addFile(path, stats);
  // Index entries examined but not clean are what a full walk would not have counted.
  let examinedIndexed = 0;
  if (prefixes.size === 0) {
    for (const path of touched) if (index.has(path)) examinedIndexed += 1;
  } else for (const path of index.paths()) if (examined(path) && index.has(path)) examinedIndexed += 1;
  out.cleanCount += index.count - examinedIndexed;
  out.assume = { examined, indexed: index.has };
  return out;
}
