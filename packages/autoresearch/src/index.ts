/**
 * @loop/autoresearch: the bounded keep/revert runner of seed 002 for its three passes, design
 * (AR-1), function (AR-2) and acceptance (AR-3). ONE mutable artifact (the source the task changed,
 * from git status, read-only) + a FIXED harness emitting ONE composite, looped as snapshot → one
 * focused edit → score → keep if strictly better else revert → log, bounded by max_iterations,
 * max_consecutive_reverts and the cost brake. It never commits and never runs destructive git.
 *
 * @example
 * import { runPass, resolvePassConfig, createFunctionPassHarness, createReflectionScorer, createTestGate } from
 * '@loop/autoresearch';
 *
 * const workspace = process.cwd();
 * const result = await runPass({
 *   workspace, taskId: 'T-42', config: resolvePassConfig('function', config.autoresearch),
 *   harness: createFunctionPassHarness({
 *     gates: createTestGate({ workspace, command: ['npx', 'vitest', 'run', '--coverage'], minCoveragePct: 80 }),
 *     reflection: createReflectionScorer({ workspace, command: ['my-agent'], dimensions: ['quality'] }),
 *   }),
 * proposer, rubricFiles: [`${workspace}/criteria/ar-function.yaml`, `${workspace}/.claude/agents/reflection-agent.md`],
 *   output: (line) => console.log(line),
 * });
 *
 * @packageDocumentation
 * @module @loop/autoresearch
 */
export { AUTORESEARCH_STATUSES } from './statuses.js';
export type { AutoresearchMode, AutoresearchStatus } from './statuses.js';
export type { ResultsRow } from './results-tsv.js';
export { autoresearchConfigSchema, resolvePassConfig } from './config.js';
export type { AutoresearchConfig, PassConfig } from './config.js';
export { createDesignPassHarness, createFunctionPassHarness, createFunctionHarness } from './pass-harness.js';
export type { PassHarness, PassScore, ScoreContext, Tier1Gates, DimensionScorer, GateRunner } from './pass-harness.js';
export { createReflectionScorer, reflectionScorerOptionsSchema } from './reflection-scorer.js';
export type { ReflectionScorerOptions } from './reflection-scorer.js';
export { createTestGate, testGateOptionsSchema } from './tier1-gates.js';
export type { TestGateOptions } from './tier1-gates.js';
export type { PassSummary, KeptChangeSummary } from './format.js';
export { runPass } from './run-pass.js';
export { defaultTargetMet } from './pass-options.js';
export type {
  RunPassOptions,
  PassResult,
  AutoresearchProposer,
  EditIdea,
  PlanContext,
  ApplyContext,
  AppliedEdit,
  CostMeter,
  RefusedEdit,
  ResumeCheck,
} from './pass-options.js';
export { createPassStateStore } from './pass-state-store.js';
export type { PassStateStoreOptions, PassStateStore, FinalState, StateWriter } from './pass-state-store.js';
export { createPassResultsLog } from './pass-results-log.js';
export type { PassResultsLog, PassResultsLogOptions } from './pass-results-log.js';
export { decideAcceptance, runAcceptanceRound } from './acceptance.js';
export type {
  AcceptanceEvaluation,
  AcceptanceDecision,
  AcceptanceRoundOptions,
  DevelopRequest,
  AcceptanceEscalation,
} from './acceptance.js';
export { runAcceptance } from './acceptance-loop.js';
export type { RunAcceptanceOptions, AcceptanceResult } from './acceptance-options.js';
export { createInteractiveAsker, createFileAsker } from './safety.js';
export type { SafetyCriticalFlow, SafetyQuestion, SafetyAnswer, QuestionAsker, SafetyOptions } from './safety.js';
export { loadPipelineContext } from './pipeline-context.js';
export type { PipelineContext } from './pipeline-context.js';
