// Issue 31: the structural-edit, keep, revert and start tests of this package again
// (rerun-suites.ts), with the change journal on (`watch: true`): a scan then stats only what
// inotify reported, and every test must still pass.
import { afterAll, expect } from 'vitest';
import { journalTotals } from '../src/internal/change-journal.js';
import { testSettings } from './helpers.js';
import { rerunSuites } from './rerun-suites.js';

testSettings.watch = true;
await rerunSuites();

afterAll(() => {
  // The watch really was used, not only the whole-tree walk it falls back to.
  expect(journalTotals.partial).toBeGreaterThan(10);
});
