import nodeFs, { type Dirent } from 'node:fs';
import git from 'isomorphic-git';
import type { GitFsStats } from '../git-fs.js';
import { foreignCode } from './errors.js';
import { gitMode, lstatOrUndefined } from './fs-ops.js';
import type { PathSet } from './path-set.js';
import { absolute } from './paths.js';
import type { Repo } from './repo.js';

/** True when `path` is ignored (`.gitignore`, `.git/info/exclude`). */
export const isIgnored = (repo: Repo, path: string): Promise<boolean> =>
  git.isIgnored({ fs: repo.gitFs, dir: repo.dir, gitdir: repo.gitdir, filepath: path });

/** What a whole-tree walk must know: the tracked paths (never ignored) and the submodule paths (not entered). */
export interface WalkScope {
  /** Paths in the commit or the index, and the directories above them. */
  readonly tracked: PathSet;
  /** Submodule (gitlink) paths: neither entered nor reported. */
  readonly gitlinks: ReadonlySet<string>;
}

function lstatNode(abs: string): nodeFs.Stats | undefined {
  try {
    return nodeFs.lstatSync(abs, { throwIfNoEntry: false });
  } catch (error) {
    if (foreignCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Decides, for a file the walk found, whether its stats match its index entry (git's stat
 * cache): a matching file is recorded as {@link STAT_CLEAN} instead of its `Stats`, so the walk
 * keeps no `Stats` object for the many unchanged files (issue 13: they were most of the garbage
 * a scan made).
 */
export type StatClassifier = (path: string, stats: GitFsStats) => boolean;

/** A file whose stats match its index entry (see {@link StatClassifier}). */
export const STAT_CLEAN = 'clean';

/** What the walk found at a path: its `lstat`, or {@link STAT_CLEAN}. */
export type WalkedFile = GitFsStats | typeof STAT_CLEAN;

/**
 * The walk on `node:fs`: one synchronous `readdir` (with file types) per directory and one
 * synchronous `lstat` per file (a call answered from the inode and dentry caches costs less than
 * the promise and thread-pool hop around it), directories in order; only the ignore check of an
 * untracked path awaits. Directories are not `lstat`ed. No file is read.
 */
async function walkNode(repo: Repo, scope: WalkScope, classify: StatClassifier | undefined, out: Map<string, WalkedFile>): Promise<void> {
  const visit = async (dir: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = nodeFs.readdirSync(absolute(repo.dir, dir), { withFileTypes: true });
    } catch (error) {
      const code = foreignCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return; // removed while walked
      throw error;
    }
    const subdirs: string[] = [];
    for (const entry of entries) {
      const name = entry.name;
      if (name === '.git') continue;
      const path = dir === '.' ? name : `${dir}/${name}`;
      if (scope.gitlinks.has(path)) continue;
      if (entry.isDirectory()) {
        subdirs.push(path);
        continue;
      }
      const stats = lstatNode(absolute(repo.dir, path));
      if (stats === undefined) continue;
      if (stats.isDirectory()) subdirs.push(path); // a file type the readdir did not know
      else if (gitMode(stats) !== undefined && (scope.tracked.has(path) || !(await isIgnored(repo, path)))) out.set(path, classify?.(path, stats) ? STAT_CLEAN : stats);
    }
    for (const path of subdirs) {
      if (!scope.tracked.worthWalking(path) && (await isIgnored(repo, path))) continue;
      await visit(path);
    }
  };
  await visit('.');
}

/** The walk on any other fs (memfs, a wrapped fs): `readdir`, then `lstat` every entry through `repo.fs`. */
async function walkFs(repo: Repo, scope: WalkScope, classify: StatClassifier | undefined, out: Map<string, WalkedFile>): Promise<void> {
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
          out.set(path, classify?.(path, stats) ? STAT_CLEAN : stats);
        }
      }),
    );
  };
  await visit('.');
}

/**
 * The `lstat` of every file and symbolic link of the working tree (not `.git`, not submodules,
 * not ignored untracked files, not inside ignored untracked directories), by relative path; a
 * file `classify` accepts is recorded as {@link STAT_CLEAN} instead. Nothing is hashed: the
 * caller compares the stats with the index (git's stat cache).
 */
export async function walkWorktree(repo: Repo, scope: WalkScope, classify?: StatClassifier): Promise<Map<string, WalkedFile>> {
  const out = new Map<string, WalkedFile>();
  await (repo.rawFs === (nodeFs as unknown) ? walkNode(repo, scope, classify, out) : walkFs(repo, scope, classify, out));
  return out;
}
