/**
 * @loop/workers-bullmq: a loop's candidates evaluated by worker processes on several machines,
 * over BullMQ and Redis. The coordinator (the process running `createLoop`) keeps the proposer,
 * the keep policy, results.tsv, state.json and the git history; each evaluation travels as a job
 * (base commit, the candidate's mutable files, the harness, its fingerprint, the config digest)
 * and a worker (`loop-worker --redis URL`) runs it in a fresh worktree of its own clone and
 * returns the run record and the log's end. See docs/many-machines.md.
 *
 * @example
 * import { createEvaluationQueue, createRemoteHarness, createRemoteWorkingCopies } from '@loop/workers-bullmq';
 *
 * const queue = createEvaluationQueue({ redis: 'redis://10.0.0.5:6379' });
 * const spec = { command: 'python train.py', timeBudgetMs: 300_000, fingerprintFiles: ['prepare.py'] };
 * const common = { queue, mutable: ['train.py'], harness: spec, runId: 'nov30' };
 * createLoop({
 *   ...,
 *   harness: createRemoteHarness({ ...common, root, repository: root }),   // baseline, re-measures
 *   parallel: { candidates: 4, workingCopies: createRemoteWorkingCopies({ ...common, root }) },
 * });
 *
 * @packageDocumentation
 */
export { createEvaluationQueue, evaluationQueueOptionsSchema } from './evaluation-queue.js';
export type {
  EvaluationQueue,
  EvaluationQueueOptions,
  EvaluationQueueEvent,
  EvaluationOutcome,
  WorkerSeen,
} from './evaluation-queue.js';
export { createRemoteHarness, remoteHarnessOptionsSchema } from './remote-harness.js';
export type { RemoteHarnessOptions } from './remote-harness.js';
export { createRemoteWorkingCopies } from './remote-working-copies.js';
export type { RemoteWorkingCopiesOptions } from './remote-working-copies.js';
export { createWorker, workerOptionsSchema } from './worker.js';
export type { CreateWorkerOptions, LoopWorker, WorkerEvent } from './worker.js';
export { JOB_FORMAT } from './job.js';
export type { CandidateJob, HarnessSpec, JobResult, WorkerIdentity } from './job.js';
export { DEFAULT_QUEUE } from './redis-connection.js';
export { main as runWorkerCommand } from './main.js';
