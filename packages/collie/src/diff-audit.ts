import type { FixRecord } from './records.js';

/** One changed file of a FIX commit. */
export interface ChangedFile {
  /** Path relative to the worktree. */
  readonly path: string;
  /** added (A), modified (M), deleted (D). */
  readonly status: 'added' | 'modified' | 'deleted';
}

/**
 * The default test-file pattern of G1: test/tests/__tests__ folders, *.test.* / *.spec.*, *_test.go / *_test.py,
 * test_*.py.
 */
export const DEFAULT_TEST_FILE =
  /(^|\/)(tests?|__tests__)\/|\.(test|spec)\.[cm]?[jt]sx?$|_test\.(go|py)$|(^|\/)test_[^/]*\.py$/;

/**
 * The test-file changes a FIX may not make (seed 000 guard G1, invariant 5): no test file is
 * changed, unless a `kind: correctness` FIX adds its reproduction test as a NEW file listed in its
 * key_files. Returns the violations (empty = PASS).
 */
export function forbiddenTestFileChanges(
  changes: readonly ChangedFile[],
  fixes: readonly Pick<FixRecord, 'kind' | 'key_files'>[],
  testFile: RegExp = DEFAULT_TEST_FILE,
): ChangedFile[] {
  const allowed = new Set(fixes.filter((f) => f.kind === 'correctness').flatMap((f) => f.key_files));
  return changes.filter((c) => testFile.test(c.path) && !(c.status === 'added' && allowed.has(c.path)));
}

/**
 * The changed files no FIX accounts for (seed 000 guard G6, the Stage 5.2 diff audit): every
 * changed file must appear in the plan's Key files, or match a `mechanical` pattern (generated
 * files, build artifacts, lockfiles). Returns the untraceable files (empty = PASS; any entry
 * escalates `g6_diff_audit_failed`).
 */
export function untraceableFiles(
  changedFiles: readonly string[],
  fixes: readonly Pick<FixRecord, 'key_files'>[],
  mechanical: readonly RegExp[] = [/(^|\/)(dist|build)\//, /(^|\/)(package-lock\.json|pnpm-lock\.yaml|yarn\.lock)$/],
): string[] {
  const keys = new Set(fixes.flatMap((f) => f.key_files));
  return changedFiles.filter((f) => !keys.has(f) && !mechanical.some((m) => m.test(f)));
}
