// Issue 31: the structural-edit, keep, revert and resume tests of this package again with every
// candidate's staging deferred to its keep (`deferStagingAt: 0`, what an index of 1 MiB or more
// gets by default) and the change journal on, as auto-iterate runs at 100,000 files: the index
// on disk then lags the candidate commit during its run, and every test must still pass.
import { afterAll, expect } from 'vitest';
import { deferTotals } from '../src/internal/index-lag.js';
import { testSettings } from './helpers.js';
import { rerunSuites } from './rerun-suites.js';

testSettings.watch = true;
testSettings.deferStagingAt = 0;
await rerunSuites();

afterAll(() => {
  // The deferral really ran (commits and reverts kept in memory) and keeps wrote it.
  expect(deferTotals.deferred).toBeGreaterThan(20);
  expect(deferTotals.flushed).toBeGreaterThan(3);
});
