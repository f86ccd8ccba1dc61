/**
 * @loop/core: contracts and engine for keep/revert optimisation loops. One mutable artifact, a
 * fixed harness that yields one comparable score, and a loop that proposes one focused edit,
 * evaluates it, keeps it only if it is strictly better (or, with `createNoiseAwareKeepPolicy`,
 * only if the improvement clears the measured noise), rolls it back otherwise, logs every step
 * and stops on a policy. With `parallel`, K candidates are evaluated at once, each in its own
 * working copy (`createMemoryWorkingCopies`, `createDirectoryWorkingCopies`), and the best passing
 * one is kept.
 *
 * @example
 * import { createLoop, createMemoryArtifact, createMemoryRollback, createFunctionHarness,
 *   createValueScorer, createFunctionProposer, maxIterations } from '@loop/core';
 *
 * const artifact = createMemoryArtifact({ x: 10 });
 * const loop = createLoop({
 *   artifact,
 *   rollback: createMemoryRollback(artifact),
 *   proposer: createFunctionProposer('step', () => {
 *     artifact.set({ x: artifact.get().x - 1 });
 *     return { description: 'x - 1' };
 *   }),
 *   harness: createFunctionHarness('square', () => artifact.get().x ** 2),
 *   scorer: createValueScorer('minimize'),
 *   stop: maxIterations(5),
 * });
 * const summary = await loop.run(); // summary.best === 25
 *
 * @packageDocumentation
 */
export type { MaybePromise, Direction, Clock, RandomSource } from './contracts/types.js';
export { systemClock } from './contracts/types.js';
export { LoopError, ConfigError, LOOP_ERROR_CODES, parseOptions, isLoopError } from './contracts/errors.js';
export type { LoopErrorCode, LoopErrorOptions, ConfigIssue } from './contracts/errors.js';
export { ITERATION_STATUSES } from './contracts/iteration-record.js';
export type {
  IterationStatus,
  IterationRecord,
  StatusCounts,
  CandidateData,
  IntermediateReport,
} from './contracts/iteration-record.js';
export { compareSnapshots, changeReason, isUnder, DELETED } from './contracts/artifact.js';
export type { Artifact, ArtifactSnapshot, ArtifactChanges } from './contracts/artifact.js';
export { createFileArtifact, fileArtifactOptionsSchema, surfaceValue } from './artifacts/file-artifact.js';
export type { FileArtifactOptions } from './artifacts/file-artifact.js';
export { createMemoryArtifact, createMemoryRollback } from './artifacts/memory.js';
export type { MemoryArtifact } from './artifacts/memory.js';
export type { Harness, RunContext, RunRecord } from './contracts/harness.js';
export { createCommandHarness, commandHarnessOptionsSchema } from './harness/command-harness.js';
export type { CommandHarnessOptions } from './harness/command-harness.js';
export { keepRunLog, keptLogName, listKeptLogs } from './harness/run-logs.js';
export type { KeepLogsOptions, KeptLog } from './harness/run-logs.js';
export { createFunctionHarness } from './harness/function-harness.js';
export type { FunctionHarnessResult } from './harness/function-harness.js';
export { isBetter, improvement } from './contracts/scorer.js';
export type { Scorer, ScoreResult, ScoreOk, ScoreCrash, CrashReason } from './contracts/scorer.js';
export {
  createRegexScorer,
  createValueScorer,
  extractMetric,
  runFailure,
  regexScorerOptionsSchema,
  metricPatternSchema,
} from './scoring/regex-scorer.js';
export type { RegexScorerOptions, MetricMatch } from './scoring/regex-scorer.js';
export { checkMetricPattern, captureGroups, nestedQuantifier } from './scoring/metric-pattern.js';
export type { MetricPatternCheck } from './scoring/metric-pattern.js';
export { readLogTail } from './harness/log-tail.js';
export type { RollbackStrategy, Checkpoint, CandidateInfo, RevertInfo } from './contracts/rollback-strategy.js';
export { neverStop, maxIterations, plateau, targetScore, wallClock, onAbort, anyOf } from './contracts/stop-policy.js';
export type { StopPolicy, StopDecision, StopReasonCode } from './contracts/stop-policy.js';
export { strictImprovement, minDelta } from './contracts/keep-policy.js';
export {
  checkConstraintExpression,
  parseConstraint,
  checkConstraints,
  constraintViolations,
  constraintMetrics,
  boundOf,
  metricsOf,
  describeViolation,
} from './policies/constraints.js';
export type {
  Constraint,
  ConstraintMode,
  ConstraintReference,
  ConstraintCheck,
  ConstraintExpressionCheck,
  MetricsSource,
} from './policies/constraints.js';
export { withConstraints, requireMetrics, toConstraints, recordedViolations } from './policies/constrained-keep.js';
export type { ConstraintInput, ConstraintVerdict, ConstraintViolationRecord } from './policies/constrained-keep.js';
export { createJsonScorer, jsonScorerOptionsSchema, valueAtPath, lastJsonLine } from './scoring/json-scorer.js';
export type { JsonScorerOptions } from './scoring/json-scorer.js';
export type { KeepPolicy, KeepDecision, KeepInput, KeepEvidence } from './contracts/keep-policy.js';
export { createNoiseAwareKeepPolicy, noiseAwareKeepPolicyOptionsSchema } from './policies/noise-aware-keep-policy.js';
export type { NoiseAwareKeepPolicyOptions, NoiseAwareTest, AlphaSpending } from './policies/noise-aware-keep-policy.js';
export { lookAlpha, spentAlpha } from './policies/noise-aware-keep-policy-spending.js';
export { summarizeSamples, welchTest, bootstrapMeanDifference, wilcoxonSignedRank } from './stats/statistics.js';
export { studentTCdf, studentTQuantile, regularizedIncompleteBeta, normalCdf } from './stats/distributions.js';
export type { SampleSummary, ComparisonResult, WilcoxonResult } from './stats/statistics.js';
export {
  createJsonSeedOnlyDetector,
  createSeedOnlyDetector,
  createMemorySeedOnlyDetector,
  rejectingSeedOnly,
  isSeedKey,
  isSeedOnlyJsonChange,
  isSeedOnlyTextChange,
  diffJsonKeys,
} from './artifacts/seed-only.js';
export type {
  SeedOnlyDetector,
  ProposedChanges,
  JsonSeedOnlyDetectorOptions,
  SeedOnlyDetectorOptions,
} from './artifacts/seed-only.js';
export type { Advisor, Advice, AdviceKind } from './contracts/advisor.js';
export type { LoopState, CostReading } from './contracts/loop-state.js';
export type { LoopEvent, LoopEventType, LoopEventOf } from './contracts/events.js';
export type { LoopSummary, KeptChange } from './contracts/summary.js';
export { createFunctionProposer } from './contracts/proposer.js';
export type { Proposer, Proposal, ProposalContext, CrashInfo, EditPlan } from './contracts/proposer.js';
export { createAgentCommandProposer, agentCommandProposerOptionsSchema } from './proposers/agent-command-proposer.js';
export type { AgentCommandProposerOptions } from './proposers/agent-command-proposer.js';
export { buildAgentPrompt, descriptionFromOutput, formatHistoryTable } from './proposers/agent-prompt.js';
export type { HistoryFormatter } from './proposers/agent-prompt.js';
export {
  createHyperparameterMutator,
  hyperparameterMutatorOptionsSchema,
  infeasibleLimits,
} from './proposers/hyperparameter-mutator.js';
export { formatViolations, rowViolations } from './policies/constraint-violations.js';
export type { RowViolation } from './policies/constraint-violations.js';
export { parseAgentUsage, parseUsageFile, agentAnswerText, USAGE_LINE } from './proposers/agent-usage.js';
export type { AgentUsage } from './proposers/agent-usage.js';
export { buildMemorySections, readNotes, NOTES_LIMITS, DUPLICATE_ROW } from './proposers/agent-memory.js';
export type { AgentMemoryOptions, DiscardedDiff, NotesLimits } from './proposers/agent-memory.js';
export { spendOf, describeSpend, formatUsd } from './policies/spend.js';
export type { Spend, SpendPart } from './policies/spend.js';
export type { HyperparameterMutatorOptions, ParameterSpace } from './proposers/hyperparameter-mutator.js';
export { createTpeProposer, tpeProposerOptionsSchema } from './proposers/tpe/tpe-proposer.js';
export type { TpeProposerOptions } from './proposers/tpe/tpe-proposer.js';
export { tpeParameterSchema } from './proposers/tpe/space.js';
export type { TpeParameter, ParameterValue } from './proposers/tpe/space.js';
export { createConfigFileAdapter, createMemoryConfigAdapter, jsonCodec } from './proposers/tpe/config-adapter.js';
export type { ConfigAdapter, ConfigCodec, ConfigFileAdapterOptions } from './proposers/tpe/config-adapter.js';
export { describeChanges, parseChanges, formatValue } from './proposers/tpe/description.js';
export type { ParameterChange } from './proposers/tpe/description.js';
export { rebuildObservations } from './proposers/tpe/observations.js';
export { paretoKeep, paretoKeepOptionsSchema } from './policies/pareto-keep-policy.js';
export type { ParetoKeepOptions, ParetoRecord } from './policies/pareto-keep-policy.js';
export { paretoFront } from './policies/pareto-front.js';
export type { ParetoPoint, ParetoFrontOptions } from './policies/pareto-front.js';
export { dominates, hypervolume, nonDominationRanks, objectiveLosses, totalViolation } from './policies/pareto-math.js';
export type { ConstraintsFunction, ObjectiveSpec } from './policies/pareto-math.js';
export type { Observation } from './proposers/tpe/observations.js';
export { createMemoryResultsLog, sanitizeCell } from './contracts/results-log.js';
export type { ResultsLog } from './contracts/results-log.js';
export { writeJsonAtomic, writeTextAtomic, readJson, appendDurable, syncDirectory } from './files/state-file.js';
export { withRecordData, readRecordData } from './files/record-data-log.js';
export type { RecordDataOptions } from './files/record-data-log.js';
export { acquireLock, isLocked } from './files/lock.js';
export type { WorkspaceLock, AcquireLockOptions } from './files/lock.js';
export { createSeededRandom } from './stats/random.js';
export { runInGroup, runInGroupToLog, killGroup, describeExit } from './process/process-group.js';
export { killOrphanGroup, killOrphanGroups, RUN_TOKEN_ENV, RUN_TOKENS_ENV } from './process/orphan-group.js';
export { pidsWithToken } from './process/token-scan.js';
export {
  bwrapArgv,
  bwrapStatus,
  planSandbox,
  resolveSandboxMode,
  sandboxMaskArgs,
  sandboxOptionsFields,
} from './process/sandbox.js';
export type { BwrapStatus, SandboxMode, SandboxOptions, SandboxPlan, SandboxSpec } from './process/sandbox.js';
export { DEFAULT_MAX_FOLDER_ENTRIES, planSandboxBinds, sweepSandboxFolders } from './process/sandbox-folders.js';
export type { SandboxBinds, SandboxFolder, SandboxSweep } from './process/sandbox-folders.js';
export type { GroupRunOptions, GroupRunResult } from './process/process-group.js';
export type { WorkingCopy, WorkingCopyProvider } from './contracts/working-copy.js';
export { parallelOptionsSchema } from './engine/parallel.js';
export type { ParallelOptions } from './engine/parallel.js';
export { createMemoryWorkingCopies } from './artifacts/memory-working-copies.js';
export type { MemoryWorkingCopy } from './artifacts/memory-working-copies.js';
export {
  createDirectoryWorkingCopies,
  directoryWorkingCopiesOptionsSchema,
} from './artifacts/directory-working-copies.js';
export type { DirectoryWorkingCopiesOptions } from './artifacts/directory-working-copies.js';
export { createLoop } from './engine/create-loop.js';
export type { Loop } from './engine/create-loop.js';
export type { Trial, TrialEdit, StepOutcome } from './engine/trial.js';
export { measure } from './engine/measure.js';
export type { Measurement } from './engine/measure.js';
export { loopOptionsSchema } from './engine/options-schema.js';
export { parseGroupedOptions } from './engine/grouped-options.js';
export type { FlatOptionMoves } from './engine/grouped-options.js';
export type {
  LoopOptions,
  LoopFileOptions,
  LoopRunOptions,
  LoopKeepOptions,
  LoopRecoveryOptions,
} from './engine/options.js';
export type { Guard, GuardVerdict, GuardInput } from './contracts/guard.js';
export { firstVerdict } from './contracts/guard.js';
export { tier1Gates } from './policies/tier1-gates.js';
export type { Tier1GatesOptions } from './policies/tier1-gates.js';
export { createJsonStateStore } from './contracts/state-store.js';
export type { StateStore, EngineState, EnginePhase } from './contracts/state-store.js';
export { noRollback, createMemoryStateStore, type MemoryStateStore } from './contracts/no-op.js';
export { costBudget, convergence, repeatedError, noFileChanges } from './policies/stop-conditions.js';
export { incumbentCurvePruner, medianPruner, patiencePruner, nonFinitePruner } from './policies/pruners.js';
export type { IncumbentCurvePrunerOptions, MedianPrunerOptions, PatiencePrunerOptions } from './policies/pruners.js';
export { successiveHalvingPruner, hyperbandPruner } from './policies/successive-halving.js';
export type { SuccessiveHalvingPrunerOptions, HyperbandPrunerOptions } from './policies/successive-halving.js';
export { valueAtStep } from './contracts/pruner.js';
export type { Pruner, PruneInput, PruneVerdict, PrunedFact } from './contracts/pruner.js';
export type { PruneOptions } from './engine/run-reporting.js';
export { intermediatePatternProblem } from './harness/intermediate-pattern.js';
export type { IntermediatePattern } from './harness/intermediate-pattern.js';
export { createCommandGuard, commandGuardOptionsSchema } from './policies/command-guard.js';
export type { CommandGuardOptions } from './policies/command-guard.js';
export type { CostBudgetOptions, ConvergenceOptions } from './policies/stop-conditions.js';
export { createStepMachine } from './step-machine/step-machine.js';
export type {
  StepMachine,
  StepMachineOptions,
  StepMachineHooks,
  StepContext,
  StepFunction,
  StepTransition,
  StepRunResult,
  StepWritePoint,
  EffectOptions,
} from './step-machine/step-machine.js';
export { stepCursorSchema, readStepCursor } from './step-machine/cursor.js';
export type { StepCursor } from './step-machine/cursor.js';
export { journalRecordSchema, readJournal } from './step-machine/journal.js';
export type { JournalRecord } from './step-machine/journal.js';
export { createHoldout, holdoutOptionsSchema } from './policies/holdout.js';
export type { Holdout, HoldoutOptions, HoldoutGateOptions } from './policies/holdout.js';
export {
  appendHoldoutUse,
  holdoutFileList,
  holdoutFingerprint,
  holdoutStateDir,
  readHoldoutUses,
  HOLDOUT_USES_FILE,
} from './policies/holdout-store.js';
export type { HoldoutUse, HoldoutUseKind } from './policies/holdout-store.js';
export { checkHoldoutSeal } from './policies/holdout-seal.js';
export type { HoldoutSealInput } from './policies/holdout-seal.js';
