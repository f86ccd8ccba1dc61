/**
 * @loop/core: contracts and engine for keep/revert optimisation loops. One mutable artifact, a
 * fixed harness that yields one comparable score, and a loop that proposes one focused edit,
 * evaluates it, keeps it only if it is strictly better, rolls it back otherwise, logs every step
 * and stops on a policy.
 *
 * This entry holds the contracts an adapter implements, the engine (`createLoop`), the everyday
 * factories and what an adapter author needs (`LoopError`, `Clock`, `Direction`). The rest is in
 * sub-entries by concept: `@loop/core/policies` (noise-aware keep, constraints, Pareto, stop
 * conditions, pruners, guards, holdout), `@loop/core/proposers` (agent command, hyperparameter
 * mutator, TPE/GP), `@loop/core/scoring`, `@loop/core/harness`, `@loop/core/artifacts` (working
 * copies for `parallel`, seed-only detectors), `@loop/core/contracts` (the contracts' detail
 * shapes), `@loop/core/process`, `@loop/core/files`, `@loop/core/stats`, `@loop/core/step-machine`.
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
 * @module @loop/core
 */
export { systemClock } from './contracts/types.js';
export type { MaybePromise, Direction, Clock } from './contracts/types.js';
export { LoopError, ConfigError, LOOP_ERROR_CODES, parseOptions, isLoopError } from './contracts/errors.js';
export type { LoopErrorCode } from './contracts/errors.js';
export type { IterationStatus, IterationRecord, CandidateData } from './contracts/iteration-record.js';
export type { Artifact, ArtifactSnapshot, ArtifactChanges } from './contracts/artifact.js';
export { createFileArtifact } from './artifacts/file-artifact.js';
export type { FileArtifactOptions } from './artifacts/file-artifact.js';
export { createMemoryArtifact, createMemoryRollback } from './artifacts/memory-artifact.js';
export type { MemoryArtifact } from './artifacts/memory-artifact.js';
export type { Harness, RunContext, RunRecord } from './contracts/harness.js';
export { createCommandHarness } from './harness/command-harness.js';
export type { CommandHarnessOptions } from './harness/command-harness.js';
export { createFunctionHarness } from './harness/function-harness.js';
export type { Scorer, ScoreResult } from './contracts/scorer.js';
export { createRegexScorer, createValueScorer } from './scoring/regex-scorer.js';
export type { RegexScorerOptions } from './scoring/regex-scorer.js';
export type { RollbackStrategy, Checkpoint, CandidateInfo, RevertInfo } from './contracts/rollback-strategy.js';
export { maxIterations, anyOf } from './contracts/stop-policy.js';
export type { StopPolicy, StopDecision } from './contracts/stop-policy.js';
export { strictImprovement } from './contracts/keep-policy.js';
export type { KeepPolicy, KeepDecision, KeepInput } from './contracts/keep-policy.js';
export type { Advisor, Advice } from './contracts/advisor.js';
export type { LoopState } from './contracts/loop-state.js';
export type { LoopEvent, LoopEventType } from './contracts/events.js';
export type { LoopSummary, KeptChange } from './contracts/summary.js';
export { createFunctionProposer } from './contracts/proposer.js';
export type { Proposer, Proposal, ProposalContext, EditPlan } from './contracts/proposer.js';
export { createMemoryResultsLog } from './contracts/results-log.js';
export type { ResultsLog } from './contracts/results-log.js';
export type { WorkingCopy, WorkingCopyProvider } from './contracts/working-copy.js';
export type { ParallelOptions } from './engine/parallel-options.js';
export { createLoop } from './engine/create-loop.js';
export type { Loop } from './engine/create-loop.js';
export type { Trial, StepOutcome } from './engine/trial.js';
export { measure } from './engine/measure.js';
export type { Measurement } from './engine/measure.js';
export type { LoopOptions } from './engine/options.js';
export type { Guard, GuardVerdict, GuardInput } from './contracts/guard.js';
export { createJsonStateStore } from './contracts/state-store.js';
export type { StateStore, EngineState } from './contracts/state-store.js';
export { noRollback, createMemoryStateStore } from './contracts/no-op.js';
export type { MemoryStateStore } from './contracts/no-op.js';
export type { Pruner, PruneInput, PruneVerdict } from './contracts/pruner.js';
export type { PruneOptions } from './engine/run-reporting.js';
