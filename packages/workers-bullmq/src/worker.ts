import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { z } from 'zod';
import { createCommandHarness, parseOptions } from '@loop/core';
import { acquireLock, type WorkspaceLock } from '@loop/core/files';
import { applyFilePatch } from './file-patch.js';
import { readLogEnd } from './internal/log-end.js';
import { createRunClones } from './internal/run-clones.js';
import { JOB_FORMAT, candidateJobSchema, type CandidateJob, type JobResult, type WorkerIdentity } from './job.js';
import { DEFAULT_QUEUE, connectionOf, redisUrlSchema } from './redis-connection.js';

/** Options of {@link createWorker}, validated by {@link workerOptionsSchema}. */
export interface CreateWorkerOptions {
  /** Redis URL, for example `redis://10.0.0.5:6379`. */
  redis: string;
  /** Jobs evaluated at once by this process (one per GPU, say). @default 1 */
  concurrency?: number;
  /**
   * Absolute directory of this worker's clones, working copies and pid files; one worker process per directory
   * (locked).
   */
  workdir: string;
  /** BullMQ queue name. @default 'loop-candidates' */
  queue?: string;
  /**
   * Worker-local paths symlinked into every working copy, relative path → absolute path on this
   * machine: data sets, `node_modules`, an evaluation folder that is not in git. A file listed in
   * the harness's `fingerprintFiles` is hashed through the link, so a worker with another version
   * of it refuses the job. @default {}
   */
  link?: Record<string, string>;
  /**
   * Lock of a job a worker holds, renewed at half this; past it without renewal the job is stalled and retried
   * elsewhere, ms. @default 30000
   */
  lockDurationMs?: number;
  /** How often this worker looks for stalled jobs, ms. @default 30000 */
  stalledIntervalMs?: number;
  /** Times a job may be recovered from stalled (its worker died) before it fails. @default 2 */
  maxStalledCount?: number;
  /** Bytes of the end of the log returned to the coordinator. @default 1048576 */
  maxLogBytes?: number;
  /** Receives what the worker did with each job. */
  onEvent?: (event: WorkerEvent) => void;
}

/** zod schema of {@link CreateWorkerOptions}. */
export const workerOptionsSchema = z.object({
  redis: redisUrlSchema,
  concurrency: z.number().int().min(1).max(256).default(1),
  workdir: z.string().refine(isAbsolute, 'workdir must be an absolute path'),
  queue: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default(DEFAULT_QUEUE),
  link: z.record(z.string().min(1), z.string().refine(isAbsolute, 'link targets must be absolute')).default({}),
  lockDurationMs: z.number().int().min(200).default(30_000),
  stalledIntervalMs: z.number().int().min(100).default(30_000),
  maxStalledCount: z.number().int().min(0).default(2),
  maxLogBytes: z.number().int().positive().default(1_048_576),
  onEvent: z.custom<(event: WorkerEvent) => void>((f) => f === undefined || typeof f === 'function').optional(),
});

/** What a worker did with one job. */
export type WorkerEvent =
  | { readonly type: 'evaluated'; readonly jobId: string; readonly result: JobResult }
  | { readonly type: 'refused'; readonly jobId: string; readonly reason: string }
  | { readonly type: 'error'; readonly jobId: string; readonly message: string };

/** A running worker process's handle. */
export interface LoopWorker {
  readonly identity: WorkerIdentity;
  /** Resolves when the worker is connected and taking jobs. */
  readonly ready: () => Promise<void>;
  /** Stops taking jobs, waits for the running ones (or aborts them with `force`), releases the workdir. Idempotent. */
  readonly close: (force?: boolean) => Promise<void>;
}

let workers = 0;

/**
 * A worker that evaluates candidate jobs: for each job it fetches the base commit into its clone
 * of the run (`workdir/runs/<runId>/repo.git`, from the job's git remote), makes a fresh detached
 * worktree, applies the patch, links its local paths, computes the harness fingerprint there and
 * refuses the job when it differs from the coordinator's (the job is retried, possibly on another
 * worker; when attempts run out the coordinator's row names this worker and both fingerprints),
 * runs core's command harness (the job's `sandbox`, its kill timeout killing the whole process
 * tree, a pid file per slot so a group orphaned by a killed worker is ended on the slot's next
 * run), returns the record and the log's end, and removes the worktree. BullMQ renews the job's
 * lock while it runs (the heartbeat): a worker that dies stops renewing, another worker's stalled
 * check puts the job back, and it runs elsewhere.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options.
 * @throws {LoopError} `LOCK_HELD` when another live worker uses `workdir`.
 */
export async function createWorker(options: CreateWorkerOptions): Promise<LoopWorker> {
  const o = parseOptions(workerOptionsSchema, options, 'workers-bullmq');
  const lock: WorkspaceLock = await acquireLock({
    path: join(o.workdir, 'worker'),
    holder: 'another loop worker uses this workdir',
  });
  const clones = createRunClones(o.workdir);
  await clones.sweep();
  workers += 1;
  const identity: WorkerIdentity = {
    id: `${hostname()}:${process.pid}:${workers}`,
    host: hostname(),
    pid: process.pid,
  };
  const freeSlots = Array.from({ length: o.concurrency }, (_, i) => o.concurrency - 1 - i);

  const processJob = async (job: Job, _token?: string, signal?: AbortSignal): Promise<JobResult> => {
    const parsed = candidateJobSchema.safeParse(job.data);
    if (!parsed.success) {
      const format = (job.data as { format?: unknown })?.format;
      throw new UnrecoverableError(
        `worker ${identity.id} cannot read ` +
          (`job ${job.id}` +
            `${format !== JOB_FORMAT ? ` (job format ${String(format)}, this worker reads ${JOB_FORMAT})` : ''}` +
            `: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`),
      );
    }
    const data = parsed.data as CandidateJob;
    const t0 = performance.now();
    const copy = await clones.checkout(
      data.runId,
      data.remote,
      data.baseCommit,
      `${data.iteration}.${data.repeat}`,
      o.link,
    );
    const slot = freeSlots.pop() ?? 0;
    const t1 = performance.now();
    try {
      await applyFilePatch(copy.dir, data.patch);
      const spec = data.harness;
      const harness = createCommandHarness({
        ...spec,
        env: { ...spec.env },
        fingerprintFiles: [...(spec.fingerprintFiles ?? [])],
        cwd: copy.dir,
        sandbox: spec.sandbox ?? 'none',
        pidFile: join(o.workdir, 'pids', `slot-${slot}.json`),
      });
      const mine = await harness.fingerprint!();
      if (mine !== data.fingerprint) {
        const reason =
          `refused by worker ${identity.id}: the harness fingerprint of its ` +
          `checkout is ${mine.slice(0, 12)}, the coordinator's ` +
          `is ${data.fingerprint.slice(0, 12)} ` +
          `(files ${(spec.fingerprintFiles ?? []).join(', ') || 'none'} or the ` +
          `command differ: another harness version on this worker?)`;
        o.onEvent?.({ type: 'refused', jobId: String(job.id), reason });
        throw new Error(reason);
      }
      const t2 = performance.now();
      const run = await harness.run({
        iteration: data.iteration,
        signal: signal ?? new AbortController().signal,
        repeat: data.repeat,
        ...(data.seed !== undefined ? { seed: data.seed } : {}),
      });
      const t3 = performance.now();
      const log = await readLogEnd(resolve(copy.dir, spec.logFile ?? 'run.log'), o.maxLogBytes);
      const ms = (a: number, b: number) => Math.round(b - a);
      const result: JobResult = {
        exitCode: run.exitCode,
        signal: run.signal,
        timedOut: run.timedOut,
        durationMs: run.durationMs,
        ...(run.error ? { error: run.error } : {}),
        logTail: log.text,
        logTruncated: log.truncated,
        worker: identity,
        digest: data.digest,
        timings: { checkout: ms(t0, t1), prepare: ms(t1, t2), run: ms(t2, t3), collect: ms(t3, performance.now()) },
      };
      o.onEvent?.({ type: 'evaluated', jobId: String(job.id), result });
      return result;
    } catch (error) {
      if (!(error as Error).message?.startsWith('refused by worker'))
        o.onEvent?.({ type: 'error', jobId: String(job.id), message: (error as Error).message });
      throw error;
    } finally {
      freeSlots.push(slot);
      await copy.remove();
    }
  };

  const worker = new Worker(o.queue, processJob, {
    connection: connectionOf(o.redis),
    concurrency: o.concurrency,
    name: identity.id,
    lockDuration: o.lockDurationMs,
    stalledInterval: o.stalledIntervalMs,
    maxStalledCount: o.maxStalledCount,
    autorun: true,
  });
  worker.on('error', () => undefined); // connection errors while Redis restarts: ioredis reconnects
  let closed = false;
  return {
    identity,
    ready: async () => {
      await worker.waitUntilReady();
    },
    close: async (force = false) => {
      if (closed) return;
      closed = true;
      await worker.close(force);
      await lock.release();
    },
  };
}
