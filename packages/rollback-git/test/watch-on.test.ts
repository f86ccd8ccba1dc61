// Issue 31: the structural-edit and revert tests of this package again, with the change journal
// on (`watch: true`): a scan then stats only what inotify reported, and every test must still
// pass. The files below read `testSettings.watch` when they build a rollback.
import { afterAll, expect } from 'vitest';
import { journalTotals } from '../src/internal/change-journal.js';
import { testSettings } from './helpers.js';

testSettings.watch = true;
await import('./git-reset-rollback.test.js');
await import('./directory-rename.test.js');
await import('./empty-directories.test.js');
await import('./scan-hand-off.test.js');
await import('./allow-dirty.test.js');
await import('./rescue-commit.test.js');

afterAll(() => {
  // The watch really was used, not only the whole-tree walk it falls back to.
  expect(journalTotals.partial).toBeGreaterThan(10);
});
