import type { GitFs, GitFsPromises } from '../git-fs.js';
import { DEFAULT_LOCK_WAIT, unlinkThroughLock, writeByRename, writeThroughLock, type LockWait } from './lock-file.js';

/** Where a write under the gitdir goes: content-addressed objects, or a file git guards with a lock. */
export type GitdirWriteKind = 'object' | 'locked';

/**
 * How a path under `gitdir` is written: `objects/` (loose objects and packs) by temp file and
 * rename, everything else (index, HEAD, refs, packed-refs, config, info/exclude) through its
 * `.lock`; `undefined` outside the gitdir (the working tree is written as it is).
 */
export function gitdirWriteKind(gitdir: string, path: string): GitdirWriteKind | undefined {
  if (!path.startsWith(`${gitdir}/`)) return undefined;
  const rel = path.slice(gitdir.length + 1);
  if (rel.startsWith('objects/')) return 'object';
  return 'locked';
}

function toBytes(data: unknown): Uint8Array {
  if (typeof data === 'string') return new TextEncoder().encode(data);
  if (data instanceof Uint8Array) return data;
  throw new TypeError(`writeFile: unsupported data type ${typeof data}`);
}

function modeOf(options: unknown): number | undefined {
  if (typeof options === 'object' && options !== null && typeof (options as { mode?: unknown }).mode === 'number') {
    return (options as { mode: number }).mode;
  }
  return undefined;
}

/**
 * Wraps a {@link GitFs} so that every write isomorphic-git and rollback-git make under `gitdir`
 * is atomic and follows git's lock-file convention (FACTS.md: isomorphic-git itself rewrites
 * `.git/index` and refs in place, truncate then write, and takes no `index.lock`):
 * - `writeFile` of the index, a ref, HEAD, packed-refs, config or info/exclude creates
 *   `<file>.lock` exclusively, writes and fsyncs it, renames it into place and fsyncs the
 *   directory; a lock the git CLI holds is waited for (`wait`), then `LOCK_HELD` is thrown;
 * - `writeFile` of an object writes a temp file and renames it (content-addressed: the same bytes);
 * - `unlink` of a ref takes its lock first.
 * Every other call (reads, working-tree writes) goes to `base` unchanged.
 */
export function lockedGitFs(base: GitFs, gitdir: string, wait: LockWait = DEFAULT_LOCK_WAIT): GitFs {
  const raw = base.promises;
  const writeFile = async (path: string, data: unknown, options?: unknown): Promise<void> => {
    const kind = gitdirWriteKind(gitdir, path);
    if (kind === undefined) {
      await (raw.writeFile as (p: string, d: unknown, o?: unknown) => Promise<unknown>)(path, data, options);
      return;
    }
    const bytes = toBytes(data);
    const mode = modeOf(options);
    if (kind === 'object') await writeByRename(raw, path, bytes, mode);
    else await writeThroughLock(raw, path, bytes, { ...(mode === undefined ? {} : { mode }), wait });
  };
  const unlink = async (path: string): Promise<void> => {
    if (gitdirWriteKind(gitdir, path) === 'locked' && !path.endsWith('.lock')) await unlinkThroughLock(raw, path, wait);
    else await raw.unlink(path);
  };
  const bound = new Map<PropertyKey, unknown>();
  const promises = new Proxy(raw, {
    get(target, prop) {
      if (prop === 'writeFile') return writeFile;
      if (prop === 'unlink') return unlink;
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function') return value;
      let fn = bound.get(prop);
      if (fn === undefined) {
        fn = (value as (...args: unknown[]) => unknown).bind(target);
        bound.set(prop, fn);
      }
      return fn;
    },
  }) as GitFsPromises;
  return { promises };
}
