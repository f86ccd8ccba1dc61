import type { MaybePromise } from './types.js';

/**
 * A fingerprint of the artifact's observable content: path (or key) to content hash, with `null`
 * for a path that does not exist. Two equal snapshots mean nothing changed.
 */
export type ArtifactSnapshot = Readonly<Record<string, string | null>>;

/**
 * The mutable surface of a loop: what the proposer may change and what it must not.
 *
 * The engine calls `inspect()` before and after each proposal; a change to a path outside
 * `mutable` (for example a read-only file) makes the proposal `rejected` and it is rolled back
 * unevaluated (seed 003: read-only files; seed 001: CANNOT modify the evaluation).
 */
export interface Artifact {
  /** Used in errors and logs. */
  readonly name: string;
  /** Absolute directory of a file artifact; absent for an in-memory artifact. */
  readonly root?: string;
  /** Relative paths (files or directories) the proposer may change. */
  readonly mutable: readonly string[];
  /** Relative paths (files or directories) the proposer may read but never change. */
  readonly readOnly: readonly string[];
  /**
   * Hashes everything in `mutable` and `readOnly`. Must be cheap enough to call twice per
   * iteration: its cost grows with the size of those paths, not of the repository.
   */
  readonly inspect: () => MaybePromise<ArtifactSnapshot>;
  /**
   * Why `path` changed, for a violation's label, when the artifact knows better than the two
   * snapshots: a path absent from the `before` snapshot may still have existed (auto-iterate's
   * workspace artifact lists only the paths git sees changed, so an edited tracked file outside
   * the targets is absent before). Return `''` for a plain edit, a reason (`deleted`, ...), or
   * `undefined` to use {@link changeReason}. Synchronous: answer from what the last `inspect()`
   * learned. @default changeReason(before, after)
   */
  readonly describeChange?: (path: string, before: string | null, after: string | null) => string | undefined;
}

/** What changed between two snapshots, split into allowed changes and violations. */
export interface ArtifactChanges {
  /** Every path whose hash differs (added, modified or deleted), sorted. */
  readonly changed: readonly string[];
  /**
   * The changed paths that are not allowed, sorted by path: those not under a `mutable` path, and
   * any symlink pointing outside the workspace (created, re-pointed or written through) even
   * under one. Each is the path, followed by why when it is not a plain edit, e.g.
   * `notes.md (deleted)`, `scratch.txt (new file)`, `lib (new symlink to ../data)`,
   * `out (symlink to /etc, outside the workspace)`, `cfg (written through its symlink to
   * /home/u/cfg, outside the workspace: not undone)`. The engine writes them into the row.
   */
  readonly violations: readonly string[];
}

/** True when `path` is `prefix` or lies inside the directory `prefix`. */
export function isUnder(path: string, prefix: string): boolean {
  const p = prefix.replace(/\/+$/, '');
  return p === '' || p === '.' || path === p || path.startsWith(`${p}/`);
}

/** The value a snapshot records for a path deleted outside the listed files (see the workspace artifact). */
export const DELETED = '<deleted>';

const OUTSIDE = 'outside-link:';
const LINK = 'link:';
const gone = (v: string | null) => v === null || v === DELETED;
const linkTarget = (v: string) =>
  v.startsWith(OUTSIDE) ? v.slice(OUTSIDE.length).split('\0')[0]! : v.slice(LINK.length);

/** Why `path` changed from `before` to `after`, or '' for a plain edit of a regular file. */
export function changeReason(before: string | null, after: string | null): string {
  if (after !== null && after.startsWith(OUTSIDE)) {
    if (before !== null && before.startsWith(OUTSIDE) && linkTarget(before) === linkTarget(after)) {
      return `written through its symlink to ${linkTarget(after)}, outside the workspace: not undone`;
    }
    return `symlink to ${linkTarget(after)}, outside the workspace`;
  }
  if (gone(after)) return before !== null && before.startsWith(LINK) ? 'symlink deleted' : 'deleted';
  if (after.startsWith(LINK))
    return gone(before) ? `new symlink to ${linkTarget(after)}` : `replaced by a symlink to ${linkTarget(after)}`;
  if (gone(before)) return after.startsWith('other:') ? 'new special file' : 'new file';
  if (before !== null && before.startsWith(LINK)) return 'symlink replaced by a file';
  return '';
}

/**
 * Compares two snapshots of `artifact`.
 *
 * @returns the changed paths and, among them, the ones the artifact does not allow to change,
 *   each with its reason (see {@link ArtifactChanges.violations}; the artifact's `describeChange`
 *   when it gives one, else {@link changeReason}).
 */
export function compareSnapshots(
  artifact: Pick<Artifact, 'mutable' | 'describeChange'>,
  before: ArtifactSnapshot,
  after: ArtifactSnapshot,
): ArtifactChanges {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changed = [...keys].filter((k) => (before[k] ?? null) !== (after[k] ?? null)).sort();
  const outward = (v: string | null | undefined) => v != null && v.startsWith(OUTSIDE);
  const violations = changed
    .filter((path) => outward(after[path]) || !artifact.mutable.some((m) => isUnder(path, m)))
    .map((path) => {
      const [was, now] = [before[path] ?? null, after[path] ?? null];
      const reason = artifact.describeChange?.(path, was, now) ?? changeReason(was, now);
      return reason === '' ? path : `${path} (${reason})`;
    });
  return { changed, violations };
}
