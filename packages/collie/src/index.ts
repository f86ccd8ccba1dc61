/**
 * @loop/collie: the collie autoiter pipeline (seed 000). A durable, restartable §3.5 entry state
 * machine over files (`step()` does one resumable unit and persists it; `run()` steps to the end),
 * injected host tools (an {@link Agent} with fast / standard / deep tiers, a {@link RunSpecAsker}
 * for Stage 0), validated triage and deep-verify records, the G2 / G7 / G8 gates, and SC1-SC5 as
 * core `StopPolicy`s. Every stage 0-6 is wired into the state machine (see README for what is not built).
 *
 * @example
 * import { createAutoiter, createAgentCommand, createAnswersFileAsker, createGitWorktree } from '@loop/collie';
 *
 * const autoiter = createAutoiter({
 *   projectId: 'my-app', sessionId: 's1', projectDir: '/work/my-app', task: 'make the suite green',
 *   agent: createAgentCommand({ command: 'claude -p --model "$COLLIE_AGENT_MODEL"', cwd: '/work/my-app', logDir: '/tmp/collie-agents' }),
 *   asker: createAnswersFileAsker('/work/answers.yaml'),
 *   workspace: createGitWorktree({ repoDir: '/work/my-app' }),
 * });
 * const outcomes = await autoiter.run(); // the last is { kind: 'done', status: 'converged', ... }
 *
 * @packageDocumentation
 */
export {
  createAutoiter,
  autoiterOptionsSchema,
  formatRunId,
  ACTIVE_FLAG,
  COMPLETION_SIGNAL,
  AnchorDriftError,
} from './autoiter.js';
export type { Autoiter, AutoiterOptions, StepOutcome, StageName, TriggerRun, TaskTrackerRun } from './autoiter.js';
export { createAgentFlowExecutor, createScriptedFlowExecutor, flowPrompt } from './flow-executor.js';
export type { FlowExecutor, FlowFixContext, ScriptedPatch } from './flow-executor.js';
export { FIX_TRAILER, REVERT_TRAILER, NOTE_TRAILER, COLLIE_AUTHOR } from './trailers.js';
export {
  renderTriage,
  renderFixRecord,
  fixIdOf,
  parseDeferred,
  flowLedgerSchema,
  readLedger,
  planTaskText,
} from './stage-files.js';
export type { FlowLedger } from './stage-files.js';
export { TIER_MODELS, createScriptedAgent, renderAgentPrompt } from './agent.js';
export type { Agent, AgentRequest, CapabilityTier, ScriptedAgent, ScriptedReply } from './agent.js';
export { createAgentCommand, agentCommandOptionsSchema } from './agent-command.js';
export type { AgentCommandOptions } from './agent-command.js';
export { createReadlineAsker, createAnswersFileAsker } from './run-spec-asker.js';
export type { RunSpecAsker, Question, QuestionId, Answers } from './run-spec-asker.js';
export {
  runSpecSchema,
  stage0Questions,
  runSpecFromAnswers,
  renderPlanFile,
  planSourceOf,
  parseRunSpec,
  triggerTimeoutMin,
} from './run-spec.js';
export type { RunSpec, RunSpecInputs } from './run-spec.js';
export {
  runStateSchema,
  readRunState,
  writeRunState,
  initialRunState,
  isTerminal,
  RUN_STATUSES,
  RUNNING_STAGES,
  iterationEntrySchema,
  PROMISE_SIGNAL,
} from './run-state.js';
export type { RunState, RunStatus, IterationEntry } from './run-state.js';
export { resolveColliePaths } from './paths.js';
export type { ColliePaths, RunPaths, IterPaths } from './paths.js';
export { createDirectoryWorkspace, createGitWorktree } from './workspace.js';
export type { Workspace } from './workspace.js';
export { noPrepare } from './preparer.js';
export type { Preparer, PrepareContext, PrepareResult } from './preparer.js';
export { noNotify, createNotifyCommand } from './run-end-notifier.js';
export type { RunEndNotifier, RunEndNotice, RunEndEvent } from './run-end-notifier.js';
export {
  triageRecordSchema,
  fixRecordSchema,
  parseTriage,
  parseFixRecord,
  TRIAGE_VERDICTS,
  FIX_KINDS,
} from './records.js';
export type { TriageRecord, TriageVerdict, FixRecord, FixKind } from './records.js';
export { triageGate, deepVerifyGate, routeRecords } from './confidence-gates.js';
export type { DeferredTag, DeferredItem, TriageRoute, FixRoute, GateResult } from './confidence-gates.js';
export { jaccard, tokenSet, bucketize, consecutiveZeroDeltas, checkNoProgress } from './no-progress-check.js';
export type { NoProgressCheck } from './no-progress-check.js';
export {
  sc1IterationCap,
  sc2Threshold,
  sc3Convergence,
  sc4Budget,
  sc5StuckSteps,
  stopChecks,
  evaluateStopChecks,
  collieStopState,
  convergenceEpsilon,
  STOP_CHECK_STATUS,
} from './stop-checks.js';
export type { CollieStopState, IterationFacts, TerminalStatus } from './stop-checks.js';
export { decideRollback } from './rollback-matrix.js';
export type { PrimaryGoal, RollbackDecision } from './rollback-matrix.js';
export {
  checkAdversarialPrompt,
  triagePrompt,
  deepVerifyPrompt,
  TRIAGE_PROMPT_RULE,
  DEEP_VERIFY_PROMPT_RULE,
} from './adversarial-prompt.js';
export type { AdversarialPromptRule, AdversarialPromptCheck } from './adversarial-prompt.js';
export { fixBatches, renderFixPlan } from './fix-plan.js';
export type { FixPlanInputs } from './fix-plan.js';
export { forbiddenTestFileChanges, untraceableFiles, DEFAULT_TEST_FILE } from './diff-audit.js';
export type { ChangedFile } from './diff-audit.js';
export {
  issueRecordSchema,
  parseObservations,
  renderObservations,
  ladderStartTier,
  upgradeTier,
} from './observations.js';
export type { IssueRecord } from './observations.js';
export {
  createFlowPipelineExecutor,
  flowPipelineOptionsSchema,
  resolveReproCommand,
  FLOW_STEPS,
  parseVerdict,
  SNAPSHOT_EXCLUDED,
} from './flow-pipeline.js';
export type {
  FlowPipelineOptions,
  FlowPipelineSettings,
  FlowPipelineExecutor,
  ReproCommand,
  FlowAgentStep,
  ReviewVerdict,
} from './flow-pipeline.js';
export { createFileTaskTracker, createMemoryTaskTracker, TASK_STATUSES, taskFileSchema } from './task-tracker.js';
export type { Task, TaskStatus, TaskTracker, TaskFile } from './task-tracker.js';
export {
  STAGE_ANCHORS,
  anchorSubject,
  parseAnchorSubject,
  anchorStageOf,
  startIterationAnchors,
  switchAnchor,
  readAnchors,
  checkAnchor,
  isLongDispatch,
  LONG_DISPATCH_CHARS,
  LONG_DISPATCH_MS,
} from './task-anchors.js';
export type { AnchorStage, StageAnchor, AnchorStageName, StartIterationOptions, AnchorCheck } from './task-anchors.js';
export { meterAgent, readTokensUsed, estimateTokens, CHARS_PER_TOKEN, tokenEntrySchema } from './token-meter.js';
export type { TokenEntry, MeterTarget } from './token-meter.js';
export type { TokenUsage, ScriptedUsageReply } from './agent.js';
export { parseUsage, replyAt } from './agent-command.js';
export type { AuditGuard, AuditGuardInput } from './audit-guard.js';
export { isLoopGuard, fixDescription } from './loop-policies.js';
export type { LoopPolicies } from './loop-policies.js';
