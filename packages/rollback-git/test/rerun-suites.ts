// The structural-edit, keep, revert, start and scan tests of this package, imported again by a test
// file that first sets `testSettings` (helpers.ts): watch-on.test.ts, deferred-staging-on.test.ts.
// Each file below reads the settings when it builds a rollback.

/** Registers those test files' tests in the calling test file. */
export async function rerunSuites(): Promise<void> {
  await import('./git-reset-rollback.test.js');
  await import('./git-reset-rollback-keep.test.js');
  await import('./git-reset-rollback-revert.test.js');
  await import('./git-reset-rollback-start.test.js');
  await import('./directory-rename.test.js');
  await import('./empty-directories.test.js');
  await import('./scan-hand-off.test.js');
  await import('./allow-dirty.test.js');
  await import('./rescue-commit.test.js');
}
