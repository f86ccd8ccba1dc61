// The public names of each of core's entries: a change to a list is a deliberate change of the API.
import { fileURLToPath } from 'node:url';
import { undocumentedExports } from '@loop/internal-test-utils';
import { describe, expect, it } from 'vitest';

const entry = (name: string): string => fileURLToPath(new URL(`./${name}.ts`, import.meta.url));

describe("core's main entry and its contract, artifact, harness and scoring entries", () => {
  it('@loop/core exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(entry('index'));
    expect([...exports].sort()).toEqual([
      'Advice',
      'Advisor',
      'Artifact',
      'ArtifactChanges',
      'ArtifactSnapshot',
      'CandidateData',
      'CandidateInfo',
      'Checkpoint',
      'Clock',
      'CommandHarnessOptions',
      'ConfigError',
      'Direction',
      'EditPlan',
      'EngineState',
      'FileArtifactOptions',
      'Guard',
      'GuardInput',
      'GuardVerdict',
      'Harness',
      'IterationRecord',
      'IterationStatus',
      'KeepDecision',
      'KeepInput',
      'KeepPolicy',
      'KeptChange',
      'LOOP_ERROR_CODES',
      'Loop',
      'LoopError',
      'LoopErrorCode',
      'LoopEvent',
      'LoopEventType',
      'LoopOptions',
      'LoopState',
      'LoopSummary',
      'MaybePromise',
      'Measurement',
      'MemoryArtifact',
      'MemoryStateStore',
      'ParallelOptions',
      'Proposal',
      'ProposalContext',
      'Proposer',
      'PruneInput',
      'PruneOptions',
      'PruneVerdict',
      'Pruner',
      'RegexScorerOptions',
      'ResultsLog',
      'RevertInfo',
      'RollbackStrategy',
      'RunContext',
      'RunRecord',
      'ScoreResult',
      'Scorer',
      'StateStore',
      'StepOutcome',
      'StopDecision',
      'StopPolicy',
      'Trial',
      'WorkingCopy',
      'WorkingCopyProvider',
      'anyOf',
      'createCommandHarness',
      'createFileArtifact',
      'createFunctionHarness',
      'createFunctionProposer',
      'createJsonStateStore',
      'createLoop',
      'createMemoryArtifact',
      'createMemoryResultsLog',
      'createMemoryRollback',
      'createMemoryStateStore',
      'createRegexScorer',
      'createValueScorer',
      'isLoopError',
      'maxIterations',
      'measure',
      'noRollback',
      'parseOptions',
      'strictImprovement',
      'systemClock',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
  it('@loop/core/contracts exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(entry('contracts'));
    expect([...exports].sort()).toEqual([
      'AdviceKind',
      'ConfigIssue',
      'CostReading',
      'CrashInfo',
      'CrashReason',
      'EnginePhase',
      'FlatOptionMoves',
      'ITERATION_STATUSES',
      'IntermediateReport',
      'LoopErrorOptions',
      'LoopEventOf',
      'LoopFileOptions',
      'LoopKeepOptions',
      'LoopRecoveryOptions',
      'LoopRunOptions',
      'StatusCounts',
      'TrialEdit',
      'loopOptionsSchema',
      'parallelOptionsSchema',
      'parseGroupedOptions',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
  it('@loop/core/artifacts exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(entry('artifacts'));
    expect([...exports].sort()).toEqual([
      'DELETED',
      'DirectoryWorkingCopiesOptions',
      'JsonSeedOnlyDetectorOptions',
      'MemoryWorkingCopy',
      'ProposedChanges',
      'SeedOnlyDetector',
      'SeedOnlyDetectorOptions',
      'changeReason',
      'compareSnapshots',
      'createDirectoryWorkingCopies',
      'createJsonSeedOnlyDetector',
      'createMemorySeedOnlyDetector',
      'createMemoryWorkingCopies',
      'createSeedOnlyDetector',
      'diffJsonKeys',
      'directoryWorkingCopiesOptionsSchema',
      'fileArtifactOptionsSchema',
      'isSeedKey',
      'isSeedOnlyJsonChange',
      'isSeedOnlyTextChange',
      'isUnder',
      'rejectingSeedOnly',
      'surfaceValue',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
  it('@loop/core/harness exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(entry('harness'));
    expect([...exports].sort()).toEqual([
      'FunctionHarnessResult',
      'IntermediatePattern',
      'KeepLogsOptions',
      'KeptLog',
      'commandHarnessOptionsSchema',
      'intermediatePatternProblem',
      'keepRunLog',
      'keptLogName',
      'listKeptLogs',
      'readLogTail',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
  it('@loop/core/scoring exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(entry('scoring'));
    expect([...exports].sort()).toEqual([
      'JsonScorerOptions',
      'MetricMatch',
      'MetricPatternCheck',
      'ScoreCrash',
      'ScoreOk',
      'captureGroups',
      'checkMetricPattern',
      'createJsonScorer',
      'extractMetric',
      'improvement',
      'isBetter',
      'jsonScorerOptionsSchema',
      'lastJsonLine',
      'metricPatternSchema',
      'nestedQuantifier',
      'regexScorerOptionsSchema',
      'runFailure',
      'valueAtPath',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
});
