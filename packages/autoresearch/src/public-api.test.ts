// The public names of @loop/autoresearch: adding or removing one is a deliberate change (issue 30).
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { undocumentedExports } from '@loop/internal-test-utils';

describe('@loop/autoresearch public entries', () => {
  it('@loop/autoresearch: the entry exports exactly these names, each with TSDoc (a change here is deliberate)', () => {
    const { exports, undocumented } = undocumentedExports(fileURLToPath(new URL('./index.ts', import.meta.url)));
    expect([...exports].sort()).toEqual([
      'AUTORESEARCH_STATUSES',
      'AcceptanceDecision',
      'AcceptanceEscalation',
      'AcceptanceEvaluation',
      'AcceptanceResult',
      'AcceptanceRoundOptions',
      'AppliedEdit',
      'ApplyContext',
      'AutoresearchConfig',
      'AutoresearchMode',
      'AutoresearchProposer',
      'AutoresearchStatus',
      'CostMeter',
      'DevelopRequest',
      'DimensionScorer',
      'EditIdea',
      'FinalState',
      'GateRunner',
      'KeptChangeSummary',
      'PassConfig',
      'PassHarness',
      'PassResult',
      'PassResultsLog',
      'PassResultsLogOptions',
      'PassScore',
      'PassStateStore',
      'PassStateStoreOptions',
      'PassSummary',
      'PipelineContext',
      'PlanContext',
      'QuestionAsker',
      'ReflectionScorerOptions',
      'RefusedEdit',
      'ResultsRow',
      'ResumeCheck',
      'RunAcceptanceOptions',
      'RunPassOptions',
      'SafetyAnswer',
      'SafetyCriticalFlow',
      'SafetyOptions',
      'SafetyQuestion',
      'ScoreContext',
      'StateWriter',
      'TestGateOptions',
      'Tier1Gates',
      'autoresearchConfigSchema',
      'createDesignPassHarness',
      'createFileAsker',
      'createFunctionHarness',
      'createFunctionPassHarness',
      'createInteractiveAsker',
      'createPassResultsLog',
      'createPassStateStore',
      'createReflectionScorer',
      'createTestGate',
      'decideAcceptance',
      'defaultTargetMet',
      'loadPipelineContext',
      'reflectionScorerOptionsSchema',
      'resolvePassConfig',
      'runAcceptance',
      'runAcceptanceRound',
      'runPass',
      'testGateOptionsSchema',
    ]);
    expect(undocumented).toEqual([]);
  }, 120_000);
  it(
    '@loop/autoresearch/results-tsv: the entry exports exactly these names, ' +
      'each with TSDoc (a change here is deliberate)',
    () => {
      const { exports, undocumented } = undocumentedExports(
        fileURLToPath(new URL('./results-tsv.ts', import.meta.url)),
      );
      expect([...exports].sort()).toEqual([
        'AR1_DIMENSIONS',
        'AR2_DIMENSIONS',
        'AR3_DIMENSIONS',
        'PASS_DIMENSIONS',
        'ParsedResults',
        'ResultsFile',
        'ResultsRow',
        'ResultsStatusClass',
        'TRAILING_COLUMNS',
        'formatResultsRow',
        'openResultsFile',
        'parseResultsTsv',
        'resultsHeader',
        'resultsStatusClass',
      ]);
      expect(undocumented).toEqual([]);
    },
    120_000,
  );
});
