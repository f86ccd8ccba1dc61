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
export type { MaybePromise, Direction, Clock, RandomSource } from './types.js';
export { systemClock } from './types.js';
export { LoopError, ConfigError, LOOP_ERROR_CODES, parseOptions, isLoopError } from './errors.js';
export type { LoopErrorCode, LoopErrorOptions, ConfigIssue } from './errors.js';
export { ITERATION_STATUSES } from './iteration-record.js';
export type {
  IterationStatus,
  IterationRecord,
  StatusCounts,
  CandidateData,
  IntermediateReport,
} from './iteration-record.js';
export { compareSnapshots, changeReason, isUnder, DELETED } from './artifact.js';
export type { Artifact, ArtifactSnapshot, ArtifactChanges } from './artifact.js';
export { createFileArtifact, fileArtifactOptionsSchema, surfaceValue } from './file-artifact.js';
export type { FileArtifactOptions } from './file-artifact.js';
export { createMemoryArtifact, createMemoryRollback } from './memory.js';
export type { MemoryArtifact } from './memory.js';
export type { Harness, RunContext, RunRecord } from './harness.js';
export { createCommandHarness, commandHarnessOptionsSchema } from './command-harness.js';
export type { CommandHarnessOptions } from './command-harness.js';
export { keepRunLog, keptLogName, listKeptLogs } from './run-logs.js';
export type { KeepLogsOptions, KeptLog } from './run-logs.js';
export { createFunctionHarness } from './function-harness.js';
export type { FunctionHarnessResult } from './function-harness.js';
export { isBetter, improvement } from './scorer.js';
export type { Scorer, ScoreResult, ScoreOk, ScoreCrash, CrashReason } from './scorer.js';
export {
  createRegexScorer,
  createValueScorer,
  extractMetric,
  runFailure,
  regexScorerOptionsSchema,
  metricPatternSchema,
} from './regex-scorer.js';
export type { RegexScorerOptions, MetricMatch } from './regex-scorer.js';
export { checkMetricPattern, captureGroups, nestedQuantifier } from './metric-pattern.js';
export type { MetricPatternCheck } from './metric-pattern.js';
export { readLogTail } from './log-tail.js';
export type { RollbackStrategy, Checkpoint, CandidateInfo, RevertInfo } from './rollback-strategy.js';
export { neverStop, maxIterations, plateau, targetScore, wallClock, onAbort, anyOf } from './stop-policy.js';
export type { StopPolicy, StopDecision, StopReasonCode } from './stop-policy.js';
export { strictImprovement, minDelta } from './keep-policy.js';
export {
  checkConstraintExpression,
  parseConstraint,
  checkConstraints,
  constraintViolations,
  constraintMetrics,
  boundOf,
  metricsOf,
  describeViolation,
} from './constraints.js';
export type {
  Constraint,
  ConstraintMode,
  ConstraintReference,
  ConstraintCheck,
  ConstraintExpressionCheck,
  MetricsSource,
} from './constraints.js';
export { withConstraints, requireMetrics, toConstraints, recordedViolations } from './constrained-keep.js';
export type { ConstraintInput, ConstraintVerdict, ConstraintViolationRecord } from './constrained-keep.js';
export { createJsonScorer, jsonScorerOptionsSchema, valueAtPath, lastJsonLine } from './json-scorer.js';
export type { JsonScorerOptions } from './json-scorer.js';
export type { KeepPolicy, KeepDecision, KeepInput, KeepEvidence } from './keep-policy.js';
export { createNoiseAwareKeepPolicy, noiseAwareKeepPolicyOptionsSchema } from './noise-aware-keep-policy.js';
export type { NoiseAwareKeepPolicyOptions, NoiseAwareTest, AlphaSpending } from './noise-aware-keep-policy.js';
export { lookAlpha, spentAlpha } from './noise-aware-keep-policy-spending.js';
export { summarizeSamples, welchTest, bootstrapMeanDifference, wilcoxonSignedRank } from './statistics.js';
export { studentTCdf, studentTQuantile, regularizedIncompleteBeta, normalCdf } from './distributions.js';
export type { SampleSummary, ComparisonResult, WilcoxonResult } from './statistics.js';
export {
  createJsonSeedOnlyDetector,
  createSeedOnlyDetector,
  createMemorySeedOnlyDetector,
  rejectingSeedOnly,
  isSeedKey,
  isSeedOnlyJsonChange,
  isSeedOnlyTextChange,
  diffJsonKeys,
} from './seed-only.js';
export type {
  SeedOnlyDetector,
  ProposedChanges,
  JsonSeedOnlyDetectorOptions,
  SeedOnlyDetectorOptions,
} from './seed-only.js';
export type { Advisor, Advice, AdviceKind } from './advisor.js';
export type { LoopState, CostReading } from './loop-state.js';
export type { LoopEvent, LoopEventType, LoopEventOf } from './events.js';
export type { LoopSummary, KeptChange } from './summary.js';
export { createFunctionProposer } from './proposer.js';
export type { Proposer, Proposal, ProposalContext, CrashInfo, EditPlan } from './proposer.js';
export { createAgentCommandProposer, agentCommandProposerOptionsSchema } from './agent-command-proposer.js';
export type { AgentCommandProposerOptions } from './agent-command-proposer.js';
export { buildAgentPrompt, descriptionFromOutput, formatHistoryTable } from './agent-prompt.js';
export type { HistoryFormatter } from './agent-prompt.js';
export {
  createHyperparameterMutator,
  hyperparameterMutatorOptionsSchema,
  infeasibleLimits,
} from './hyperparameter-mutator.js';
export { formatViolations, rowViolations } from './constraint-violations.js';
export type { RowViolation } from './constraint-violations.js';
export { parseAgentUsage, parseUsageFile, agentAnswerText, USAGE_LINE } from './agent-usage.js';
export type { AgentUsage } from './agent-usage.js';
export { buildMemorySections, readNotes, NOTES_LIMITS, DUPLICATE_ROW } from './agent-memory.js';
export type { AgentMemoryOptions, DiscardedDiff, NotesLimits } from './agent-memory.js';
export { spendOf, describeSpend, formatUsd } from './spend.js';
export type { Spend, SpendPart } from './spend.js';
export type { HyperparameterMutatorOptions, ParameterSpace } from './hyperparameter-mutator.js';
export { createTpeProposer, tpeProposerOptionsSchema } from './tpe/tpe-proposer.js';
export type { TpeProposerOptions } from './tpe/tpe-proposer.js';
export { tpeParameterSchema } from './tpe/space.js';
export type { TpeParameter, ParameterValue } from './tpe/space.js';
export { createConfigFileAdapter, createMemoryConfigAdapter, jsonCodec } from './tpe/config-adapter.js';
export type { ConfigAdapter, ConfigCodec, ConfigFileAdapterOptions } from './tpe/config-adapter.js';
export { describeChanges, parseChanges, formatValue } from './tpe/description.js';
export type { ParameterChange } from './tpe/description.js';
export { rebuildObservations } from './tpe/observations.js';
export { paretoKeep, paretoKeepOptionsSchema } from './pareto/pareto-keep-policy.js';
export type { ParetoKeepOptions, ParetoRecord } from './pareto/pareto-keep-policy.js';
export { paretoFront } from './pareto/pareto-front.js';
export type { ParetoPoint, ParetoFrontOptions } from './pareto/pareto-front.js';
export { dominates, hypervolume, nonDominationRanks, objectiveLosses, totalViolation } from './pareto/pareto-math.js';
export type { ConstraintsFunction, ObjectiveSpec } from './pareto/pareto-math.js';
export type { Observation } from './tpe/observations.js';
export { createMemoryResultsLog, sanitizeCell } from './results-log.js';
export type { ResultsLog } from './results-log.js';
export { writeJsonAtomic, writeTextAtomic, readJson, appendDurable, syncDirectory } from './state-file.js';
export { withRecordData, readRecordData } from './record-data-log.js';
export type { RecordDataOptions } from './record-data-log.js';
export { acquireLock, isLocked } from './lock.js';
export type { WorkspaceLock, AcquireLockOptions } from './lock.js';
export { createSeededRandom } from './random.js';
export { runInGroup, runInGroupToLog, killGroup, describeExit } from './internal/process-group.js';
export { killOrphanGroup, killOrphanGroups, RUN_TOKEN_ENV, RUN_TOKENS_ENV } from './internal/orphan-group.js';
export { pidsWithToken } from './internal/token-scan.js';
export {
  bwrapArgv,
  bwrapStatus,
  planSandbox,
  resolveSandboxMode,
  sandboxMaskArgs,
  sandboxOptionsFields,
} from './sandbox.js';
export type { BwrapStatus, SandboxMode, SandboxOptions, SandboxPlan, SandboxSpec } from './sandbox.js';
export { DEFAULT_MAX_FOLDER_ENTRIES, planSandboxBinds, sweepSandboxFolders } from './sandbox-folders.js';
export type { SandboxBinds, SandboxFolder, SandboxSweep } from './sandbox-folders.js';
export type { GroupRunOptions, GroupRunResult } from './internal/process-group.js';
export type { WorkingCopy, WorkingCopyProvider } from './working-copy.js';
export { parallelOptionsSchema } from './parallel.js';
export type { ParallelOptions } from './parallel.js';
export { createMemoryWorkingCopies } from './memory-working-copies.js';
export type { MemoryWorkingCopy } from './memory-working-copies.js';
export { createDirectoryWorkingCopies, directoryWorkingCopiesOptionsSchema } from './directory-working-copies.js';
export type { DirectoryWorkingCopiesOptions } from './directory-working-copies.js';
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
export type { Guard, GuardVerdict, GuardInput } from './guard.js';
export { firstVerdict } from './guard.js';
export { tier1Gates } from './tier1-gates.js';
export type { Tier1GatesOptions } from './tier1-gates.js';
export { createJsonStateStore } from './state-store.js';
export type { StateStore, EngineState, EnginePhase } from './state-store.js';
export { noRollback, createMemoryStateStore, type MemoryStateStore } from './no-op.js';
export { costBudget, convergence, repeatedError, noFileChanges } from './stop-conditions.js';
export { incumbentCurvePruner, medianPruner, patiencePruner, nonFinitePruner } from './pruners.js';
export type { IncumbentCurvePrunerOptions, MedianPrunerOptions, PatiencePrunerOptions } from './pruners.js';
export { successiveHalvingPruner, hyperbandPruner } from './successive-halving.js';
export type { SuccessiveHalvingPrunerOptions, HyperbandPrunerOptions } from './successive-halving.js';
export { valueAtStep } from './pruner.js';
export type { Pruner, PruneInput, PruneVerdict, PrunedFact } from './pruner.js';
export type { PruneOptions } from './engine/run-reporting.js';
export { intermediatePatternProblem } from './intermediate-pattern.js';
export type { IntermediatePattern } from './intermediate-pattern.js';
export { createCommandGuard, commandGuardOptionsSchema } from './command-guard.js';
export type { CommandGuardOptions } from './command-guard.js';
export type { CostBudgetOptions, ConvergenceOptions } from './stop-conditions.js';
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
export { createHoldout, holdoutOptionsSchema } from './holdout.js';
export type { Holdout, HoldoutOptions, HoldoutGateOptions } from './holdout.js';
export {
  appendHoldoutUse,
  holdoutFileList,
  holdoutFingerprint,
  holdoutStateDir,
  readHoldoutUses,
  HOLDOUT_USES_FILE,
} from './holdout-store.js';
export type { HoldoutUse, HoldoutUseKind } from './holdout-store.js';
export { checkHoldoutSeal } from './holdout-seal.js';
export type { HoldoutSealInput } from './holdout-seal.js';
