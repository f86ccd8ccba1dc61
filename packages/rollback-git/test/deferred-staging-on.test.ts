// Issue 31: the structural-edit, keep, revert and resume tests of this package again with every
// candidate's staging deferred to its keep (`deferStagingAt: 0`, what an index of 1 MiB or more
// gets by default) and the change journal on, as auto-iterate runs at 100,000 files: the index
// on disk then lags the candidate commit during its run, and every test must still pass.
import { afterAll, expect } from 'vitest';
import { deferTotals } from '../src/internal/index-lag.js';
import { testSettings } from './helpers.js';

testSettings.watch = true;
testSettings.deferStagingAt = 0;
await import('./git-reset-rollback.test.js');
await import('./git-reset-rollback-keep.test.js');
await import('./git-reset-rollback-revert.test.js');
await import('./git-reset-rollback-start.test.js');
await import('./directory-rename.test.js');
await import('./empty-directories.test.js');
await import('./scan-hand-off.test.js');
await import('./allow-dirty.test.js');
await import('./rescue-commit.test.js');

afterAll(() => {
  // The deferral really ran (commits and reverts kept in memory) and keeps wrote it.
  expect(deferTotals.deferred).toBeGreaterThan(20);
  expect(deferTotals.flushed).toBeGreaterThan(3);
});
