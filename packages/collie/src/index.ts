/**
 * @loop/collie: the collie autoiter pipeline (seed 000). A durable, restartable §3.5 entry state
 * machine over files (`step()` does one resumable unit and persists it; `run()` steps to the end),
 * injected host tools (an {@link Agent} with fast / standard / deep tiers, a {@link RunSpecAsker}
 * for Stage 0, a {@link Workspace}, a {@link FlowExecutor}, a {@link RunEndNotifier}), and the
 * seed's gates, guards and stop checks SC1-SC5 wired into the state machine.
 *
 * This entry holds the controller factory and its options, the contracts of the injected tools with
 * their ready implementations, and the files a host reads (state.json, the paths). The seed's rules
 * as functions (record parsers, gates, guards, stop checks, rollback matrix) are in
 * `@loop/collie/rules`.
 *
 * @example
 * import { createAutoiter, createAgentCommand, createAnswersFileAsker, createGitWorktree } from '@loop/collie';
 *
 * const autoiter = createAutoiter({
 *   projectId: 'my-app', sessionId: 's1', projectDir: '/work/my-app', task: 'make the suite green',
 * agent: createAgentCommand({ command: 'claude -p --model "$COLLIE_AGENT_MODEL"', cwd: '/work/my-app', logDir:
 * '/tmp/collie-agents' }),
 *   asker: createAnswersFileAsker('/work/answers.yaml'),
 *   workspace: createGitWorktree({ repoDir: '/work/my-app' }),
 *   stop: { maxIterations: 5 },
 * });
 * const outcomes = await autoiter.run(); // the last is { kind: 'done', status: 'converged', ... }
 *
 * @packageDocumentation
 * @module @loop/collie
 */
// The controller, its options and what a step returns.
export { createAutoiter, ACTIVE_FLAG, COMPLETION_SIGNAL, AnchorDriftError } from './autoiter.js';
export type { Autoiter, AutoiterStepOutcome, StageName } from './autoiter.js';
export type {
  AutoiterOptions,
  AutoiterFileOptions,
  AutoiterRunOptions,
  AutoiterScoreOptions,
  AutoiterKeepOptions,
  AutoiterStopOptions,
  AutoiterRecoveryOptions,
  AutoiterParallelOptions,
  TriggerRun,
  TaskTrackerRun,
} from './autoiter-options.js';
export type { DeprecatedAutoiterOptions } from './deprecated-options.js';
// Agents.
export { createScriptedAgent, renderAgentPrompt } from './agent.js';
export type {
  Agent,
  AgentRequest,
  CapabilityTier,
  TokenUsage,
  ScriptedAgent,
  ScriptedReply,
  ScriptedUsageReply,
} from './agent.js';
export { createAgentCommand } from './agent-command.js';
export type { AgentCommandOptions } from './agent-command.js';
// Stage 0's questions.
export { createReadlineAsker, createAnswersFileAsker } from './run-spec-asker.js';
export type { RunSpecAsker, Question, QuestionId, Answers } from './run-spec-asker.js';
export type { RunSpec } from './run-spec.js';
// Working copy, prepare check, terminal-event notice, task anchors.
export { createDirectoryWorkspace, createGitWorktree } from './workspace.js';
export type { Workspace } from './workspace.js';
export { noPrepare } from './preparer.js';
export type { Preparer, PrepareContext, PrepareResult } from './preparer.js';
export { noNotify, createNotifyCommand } from './run-end-notifier.js';
export type { RunEndNotifier, RunEndNotice, RunEndEvent } from './run-end-notifier.js';
export { createFileTaskTracker, createMemoryTaskTracker } from './task-tracker.js';
export type { Task, TaskStatus, TaskTracker } from './task-tracker.js';
// Stage 5.1: applying one FIX.
export { createAgentFlowExecutor, createScriptedFlowExecutor } from './flow-executor.js';
export type { FlowExecutor, FlowFixContext, ScriptedPatch } from './flow-executor.js';
export { createFlowPipelineExecutor, FLOW_STEPS } from './flow-pipeline.js';
export type { FlowPipelineOptions, FlowPipelineExecutor, FlowAgentStep, ReproCommand } from './flow-pipeline.js';
// Extra Stage 5.2 guards, and the FIX record they and the flow get.
export type { AuditGuard, AuditGuardInput } from './audit-guard.js';
export type { ChangedFile } from './diff-audit.js';
export type { FixRecord, FixKind } from './records.js';
// The files a host reads.
export { readRunState } from './run-state.js';
export type { RunState, RunStatus, IterationEntry } from './run-state.js';
export { resolveColliePaths } from './paths.js';
export type { ColliePaths, RunPaths, IterPaths } from './paths.js';
