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
}

/** What changed between two snapshots, split into allowed changes and violations. */
export interface ArtifactChanges {
  /** Every path whose hash differs (added, modified or deleted), sorted. */
  readonly changed: readonly string[];
  /** The changed paths that are not under a `mutable` path, sorted. */
  readonly violations: readonly string[];
}

/** True when `path` is `prefix` or lies inside the directory `prefix`. */
export function isUnder(path: string, prefix: string): boolean {
  const p = prefix.replace(/\/+$/, '');
  return p === '' || p === '.' || path === p || path.startsWith(`${p}/`);
}

/**
 * Compares two snapshots of `artifact`.
 *
 * @returns the changed paths and, among them, the ones the artifact does not allow to change.
 */
export function compareSnapshots(
  artifact: Pick<Artifact, 'mutable'>,
  before: ArtifactSnapshot,
  after: ArtifactSnapshot,
): ArtifactChanges {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changed = [...keys].filter((k) => (before[k] ?? null) !== (after[k] ?? null)).sort();
  const violations = changed.filter((path) => !artifact.mutable.some((m) => isUnder(path, m)));
  return { changed, violations };
}
