import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { undocumentedExports } from '@loop/internal-test-utils';

describe('@loop/auto-iterate public entry', () => {
  it('the public entry exports exactly these names (a change here is deliberate)', () => {
    const { exports } = undocumentedExports(fileURLToPath(new URL('./index.ts', import.meta.url)));
    expect([...exports].sort()).toEqual([
      'AUTO_ITERATE_TSV_HEADER',
      'ArchivedRun',
      'AutoIterate',
      'AutoIterateConstraint',
      'AutoIterateDirection',
      'AutoIterateFiles',
      'AutoIterateHoldout',
      'AutoIterateKeep',
      'AutoIterateOptions',
      'AutoIterateParallel',
      'AutoIterateRecovery',
      'AutoIterateRun',
      'AutoIterateScore',
      'AutoIterateSealedHoldout',
      'AutoIterateStatus',
      'AutoIterateStop',
      'HOLDOUT_LOG',
      'HostedLoop',
      'MetricsOption',
      'REJECTED_PREFIX',
      'RUN_FILES',
      'ResultsTsvOptions',
      'checkConstraintOptions',
      'createAutoIterate',
      'createNoNewDependenciesGuard',
      'createResultsTsv',
      'dateTag',
      'describeEarlierRuns',
      'formatAutoIterateHistory',
      'formatAutoIterateRow',
      'formatIterationLine',
      'formatSummary',
      'parseAutoIterateTsv',
      'toAutoIterateStatus',
    ]);
  }, 120_000);
});
