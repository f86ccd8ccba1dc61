/**
 * @loop/autotune: the autotune-loop controller (seed 004). A thin multi-round controller around an
 * injected round worker: one orchestrated round per iteration, never more. loop_state.json is the
 * only control plane (`mode`, `status`, `last_round.recommended_action` continue / stop_success /
 * stop_exhausted, `stop_reason`); scoreboard.json records attempts per targeted improvement and
 * decides "failed 3+ times"; stopping as exhausted parks the out-of-reach tasks in
 * cannot_handle_group.txt with their rationale in issues.md; the changelog gets one entry per round.
 * Every iteration can be a separate process: state lives only in the files. Each iteration runs on
 * core's step machine, so after a kill -9 the next call resumes it and makes each write and commit
 * exactly once; re-entry checks `last_round.recommended_action` before starting a round.
 *
 * @example
 * import { initAutotune, runController, createGitCommitter } from '@loop/autotune';
 *
 * await initAutotune({ dir: '/path/to/app' });
 * const { final } = await runController({
 *   dir: '/path/to/app',
 *   worker: {
 *     name: 'my-worker',
 *     improve: async ({ round, scoreboard, excluded }) => ({ summary: 'fix parser', targets: ['parse-dates'] }),
 *     evaluate: async () => ({ tasks: [{ id: 'parse-dates', passed: true }] }),
 *   },
 *   committer: createGitCommitter({ dir: '/path/to/app' }),
 * });
 * console.log(final.report); // "autotune loop complete after round 1: stop_success: ..."
 *
 * @packageDocumentation
 */
export { initAutotune, runControllerIteration, runController } from './controller.js';
export type { IterationOutcome, IterationResult, RunControllerResult, InitAutotuneOptions } from './controller.js';
export { autotuneControllerOptionsSchema, runControllerOptionsSchema } from './autotune-options.js';
export type { AutotuneControllerOptions, RunControllerOptions } from './autotune-options.js';
export { resolveAutotunePaths } from './paths.js';
export type { AutotunePaths } from './paths.js';
export { RECOMMENDED_ACTIONS, readLoopStateFile } from './loop-state-file.js';
export type { LoopStateFile, LastRound, RecommendedAction } from './loop-state-file.js';
export { failedAttempts, scoreboardBefore, readScoreboard } from './scoreboard.js';
export type { Scoreboard, Attempt } from './scoreboard.js';
export { decideRecommendedAction } from './stop-criteria.js';
export type { StopCriteriaInput, StopCriteriaDecision } from './stop-criteria.js';
export type {
  RoundWorker,
  RoundContext,
  RoundPlan,
  RoundEvaluation,
  TaskResult,
  TaskPriority,
} from './round-worker.js';
export { noSyncCheck } from './sync-check.js';
export type { SyncCheck, SyncResult } from './sync-check.js';
export { noCommits, createRecordingCommitter } from './committer.js';
export type { Committer, CommitRequest, RecordingCommitter } from './committer.js';
export { createGitCommitter, gitCommitterOptionsSchema } from './git-committer.js';
export type { GitCommitterOptions } from './git-committer.js';
