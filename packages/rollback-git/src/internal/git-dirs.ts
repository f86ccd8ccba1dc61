import type { GitFs, GitFsPromises } from '../git-fs.js';

/** Where a working tree's repository lives (issue 32: linked worktrees and submodules). */
export interface GitDirs {
  /** The common directory: objects, refs, packed-refs, config, info/exclude. `<dir>/.git` for a plain repository. */
  readonly common: string;
  /** This working tree's own directory: HEAD and the index. The same as `common` unless `linked`. */
  readonly worktree: string;
  /** True for a linked worktree (`git worktree add`): its HEAD and index are not in the common directory. */
  readonly linked: boolean;
}

interface SyncFs {
  readFileSync?: (path: string, encoding: 'utf8') => string;
}

const join = (dir: string, rel: string): string => (rel.startsWith('/') ? rel : `${dir}/${rel}`);

/** `a/b/../c` → `a/c` (absolute, `/`-separated). */
function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

function readText(fs: SyncFs, path: string): string | undefined {
  try {
    return fs.readFileSync?.(path, 'utf8');
  } catch {
    return undefined; // no such file, or a directory
  }
}

/**
 * Resolves the repository of the working tree at `root` (absolute, no trailing `/`) the way git
 * does: `.git` a directory is the repository; `.git` a file (`gitdir: <path>`, relative to `root`)
 * names it, as in a submodule (`../.git/modules/<name>`) or a linked worktree
 * (`<repo>/.git/worktrees/<name>`, whose `commondir` file names the shared directory).
 * Synchronous, through the fs's `readFileSync` (node:fs and memfs have it); without one, or
 * when `.git` is missing or unreadable, `<root>/.git` (the checks that follow report it).
 */
export function resolveGitDirs(fs: GitFs, root: string): GitDirs {
  const plain = { common: `${root}/.git`, worktree: `${root}/.git`, linked: false };
  const sync = fs as unknown as SyncFs;
  const pointer = readText(sync, `${root}/.git`);
  const target = pointer === undefined ? undefined : /^gitdir:[ \t]*(.+?)[ \t]*$/m.exec(pointer)?.[1];
  if (target === undefined) return plain;
  const worktree = normalize(join(root, target));
  const commondir = readText(sync, `${worktree}/commondir`)?.trim();
  if (commondir === undefined || commondir === '') return { common: worktree, worktree, linked: false };
  const common = normalize(join(worktree, commondir));
  return { common, worktree, linked: common !== worktree };
}

/** The files of a linked worktree's own directory (git's per-worktree paths this package or isomorphic-git touch). */
const PER_WORKTREE = new Set([
  'HEAD',
  'HEAD.lock',
  'index',
  'index.lock',
  'ORIG_HEAD',
  'FETCH_HEAD',
  'MERGE_HEAD',
  'logs/HEAD',
  'logs/HEAD.lock',
]);

/**
 * Maps a path under the common directory to where git keeps it for this working tree: HEAD and
 * the index (and their locks) in the worktree's own directory, everything else unchanged.
 */
export function gitPathMapper(dirs: GitDirs): (path: string) => string {
  if (!dirs.linked) return (path) => path;
  const prefix = `${dirs.common}/`;
  return (path) => {
    const rel = path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
    return rel !== undefined && PER_WORKTREE.has(rel) ? `${dirs.worktree}/${rel}` : path;
  };
}

/** The fs methods whose first argument is the one path they act on. */
const ONE_PATH = new Set([
  'readFile',
  'writeFile',
  'unlink',
  'readdir',
  'mkdir',
  'rmdir',
  'lstat',
  'stat',
  'readlink',
  'chmod',
  'open',
  'rm',
]);

/**
 * Wraps `base` so that isomorphic-git and this package, given the common directory as `gitdir`,
 * read and write a linked worktree's HEAD and index in the worktree's own directory (isomorphic-git
 * 1.44 has no `commondir` support). `base` itself when the working tree is not linked.
 */
export function worktreeGitFs(base: GitFs, dirs: GitDirs): GitFs {
  if (!dirs.linked) return base;
  const map = gitPathMapper(dirs);
  const raw = base.promises as unknown as Record<string, unknown>;
  const wrapped = new Map<PropertyKey, unknown>();
  const promises = new Proxy(raw, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function') return value;
      let fn = wrapped.get(prop);
      if (fn === undefined) {
        const call = value as (...args: unknown[]) => unknown;
        const at = (path: unknown): unknown => (typeof path === 'string' ? map(path) : path);
        const name = String(prop);
        if (name === 'rename') {
          fn = (from: string, to: string) => call.call(target, map(from), map(to));
        } else if (name === 'symlink') {
          fn = (link: string, to: string, ...more: unknown[]) => call.call(target, link, at(to), ...more);
        } else if (ONE_PATH.has(name)) {
          fn = (p: unknown, ...more: unknown[]) => call.call(target, at(p), ...more);
        } else {
          fn = call.bind(target);
        }
        wrapped.set(prop, fn);
      }
      return fn;
    },
  }) as unknown as GitFsPromises;
  return { promises };
}
