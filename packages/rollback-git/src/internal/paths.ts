/**
 * Normalises a relative path from the options: forward slashes, no `./` prefix, no trailing or
 * doubled slashes. The working-tree root is `.`.
 */
export function normalizeRelativePath(path: string): string {
  const parts = path
    .replaceAll('\\', '/')
    .split('/')
    .filter((part) => part !== '' && part !== '.');
  return parts.length === 0 ? '.' : parts.join('/');
}

/** True when `path` is `base` or inside it (`.` contains everything). */
export function isWithin(path: string, base: string): boolean {
  return base === '.' || path === base || path.startsWith(`${base}/`);
}

/**
 * True when a walk at `path` can still reach something in `bases`: `path` is inside a base, or it
 * is a directory on the way to one.
 */
export function worthWalking(path: string, bases: readonly string[]): boolean {
  if (path === '.') return true;
  return bases.some((base) => isWithin(path, base) || base.startsWith(`${path}/`));
}

/** Orders records by `path` in JS string order (git's byte order for every path without a surrogate pair). */
export function byPath(a: { readonly path: string }, b: { readonly path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** The parent directory of a relative path, or `.` for a top-level entry. */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '.' : path.slice(0, slash);
}

/** `dir` joined with a relative path (`.` is `dir` itself). */
export function absolute(dir: string, path: string): string {
  return path === '.' ? dir : `${dir.endsWith('/') ? dir.slice(0, -1) : dir}/${path}`;
}
