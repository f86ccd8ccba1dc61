// The public names of @loop/autotune: adding or removing one is a deliberate change (issue 30).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { undocumentedExports } from '@loop/internal-test-utils';

describe('@loop/autotune public entries', () => {
  it('@loop/autotune: the entry exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(fileURLToPath(new URL('./index.ts', import.meta.url)));
    expect([...exports].sort()).toEqual([
      'Attempt',
      'AutotuneControllerOptions',
      'AutotunePaths',
      'CommitRequest',
      'Committer',
      'GitCommitterOptions',
      'InitAutotuneOptions',
      'IterationOutcome',
      'IterationResult',
      'LastRound',
      'LoopStateFile',
      'RECOMMENDED_ACTIONS',
      'RecommendedAction',
      'RecordingCommitter',
      'RoundContext',
      'RoundEvaluation',
      'RoundPlan',
      'RoundWorker',
      'RunControllerOptions',
      'RunControllerResult',
      'Scoreboard',
      'StopCriteriaDecision',
      'StopCriteriaInput',
      'SyncCheck',
      'SyncResult',
      'TaskPriority',
      'TaskResult',
      'autotuneControllerOptionsSchema',
      'createGitCommitter',
      'createRecordingCommitter',
      'decideRecommendedAction',
      'failedAttempts',
      'gitCommitterOptionsSchema',
      'initAutotune',
      'noCommits',
      'noSyncCheck',
      'readLoopStateFile',
      'readScoreboard',
      'resolveAutotunePaths',
      'runController',
      'runControllerIteration',
      'runControllerOptionsSchema',
      'scoreboardBefore',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
});
