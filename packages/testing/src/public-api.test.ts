// The public names of @loop/testing: adding or removing one is a deliberate change (issue 30).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { undocumentedExports } from '@loop/internal-test-utils';

describe('@loop/testing public entry', () => {
  it('@loop/testing: the entry exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(fileURLToPath(new URL('./index.ts', import.meta.url)));
    expect([...exports].sort()).toEqual([
      'Barrier',
      'Deferred',
      'FakeHarness',
      'FakeHarnessOptions',
      'FakeOutcome',
      'ManualClock',
      'ResultsLogFixture',
      'RollbackFixture',
      'StateStoreFixture',
      'createBarrier',
      'createContextProposer',
      'createCounterProposer',
      'createDeferred',
      'createFakeHarness',
      'createManualClock',
      'describeResultsLog',
      'describeRollbackStrategy',
      'describeStateStore',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
});
