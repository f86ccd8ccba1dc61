import { Queue, QueueEvents } from 'bullmq';
import { z } from 'zod';
import { parseOptions } from '@loop/core';
import { jobIdOf, type CandidateJob, type JobResult } from './job.js';
import { DEFAULT_QUEUE, connectionOf, redisUrlSchema } from './redis-connection.js';

/** Options of {@link createEvaluationQueue}, validated by {@link evaluationQueueOptionsSchema}. */
export interface EvaluationQueueOptions {
  /** Redis URL, for example `redis://127.0.0.1:6379`. */
  redis: string;
  /** BullMQ queue name; coordinator and workers must agree. @default 'loop-candidates' */
  queue?: string;
  /**
   * Deliveries of one job before it fails for good: a refusal (harness fingerprint mismatch), a
   * worker error, or a worker that died holding it (stalled) count. @default 3
   */
  attempts?: number;
  /**
   * How often the coordinator looks at a pending job's state when no event arrives, ms. The
   * queue's completed/failed events (BullMQ QueueEvents) wake it at once; the poll is the safety
   * net for events lost while Redis was down. @default 1000
   */
  pollMs?: number;
  /** How long finished jobs (the results) stay in Redis for a resumed coordinator, seconds. @default 604800 (7 days) */
  keepResultsS?: number;
  /** Receives what the coordinator notices: a job submitted again after Redis lost it, a job that failed for good. */
  onEvent?: (event: EvaluationQueueEvent) => void;
}

/** zod schema of {@link EvaluationQueueOptions}. */
export const evaluationQueueOptionsSchema = z.object({
  redis: redisUrlSchema,
  queue: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default(DEFAULT_QUEUE),
  attempts: z.number().int().min(1).default(3),
  pollMs: z.number().int().positive().default(1000),
  keepResultsS: z.number().int().positive().default(604_800),
  onEvent: z
    .custom<(event: EvaluationQueueEvent) => void>((f) => f === undefined || typeof f === 'function')
    .optional(),
});

/** Something the coordinator noticed about one job. */
export type EvaluationQueueEvent =
  | { readonly type: 'submitted'; readonly jobId: string; readonly existing: boolean }
  | { readonly type: 'resubmitted'; readonly jobId: string; readonly why: string }
  | { readonly type: 'failed'; readonly jobId: string; readonly reason: string; readonly attempts: number };

/** How one evaluation ended, seen from the coordinator. */
export type EvaluationOutcome =
  | { readonly kind: 'evaluated'; readonly jobId: string; readonly result: JobResult; readonly attempts: number }
  | { readonly kind: 'failed'; readonly jobId: string; readonly reason: string; readonly attempts: number }
  | { readonly kind: 'aborted'; readonly jobId: string };

/** A worker connected to the queue now (from Redis' client list). */
export interface WorkerSeen {
  /** The worker's name (`<host>:<pid>:<n>`). */
  readonly name: string;
  /** Its address as Redis sees it. */
  readonly addr: string;
  /** Seconds since its connection was opened. */
  readonly ageS: number;
}

/** The coordinator's side of the queue: submits evaluations and waits for their results. */
export interface EvaluationQueue {
  readonly name: string;
  /**
   * Submits `job` under its id ({@link jobIdOf}; a job already in Redis under that id, finished
   * or not, is not added again) and resolves when it is finished, failed for good, or `signal`
   * aborts (a job not yet taken is then removed; a running one is left to finish, its result kept
   * for a resumed run). A job that disappears from Redis (a restart without persistence) is
   * submitted again. Never rejects for a failed evaluation; rejects only when the queue is closed.
   */
  readonly evaluate: (job: CandidateJob, signal?: AbortSignal, occurrence?: number) => Promise<EvaluationOutcome>;
  /** The workers connected to the queue now (`loop status`). */
  readonly workers: () => Promise<WorkerSeen[]>;
  /** Closes the Redis connection. Pending `evaluate` calls reject. Idempotent. */
  readonly close: () => Promise<void>;
}

/** Marks a job whose event arrived while nobody was waiting. */
const FIRED = () => undefined;

/** One 'abort' listener per signal however many evaluations wait on it (no MaxListeners warning at K > 10). */
const abortWaiters = new WeakMap<AbortSignal, Set<() => void>>();
function onAbort(signal: AbortSignal | undefined, f: () => void): () => void {
  if (!signal) return () => undefined;
  let set = abortWaiters.get(signal);
  if (!set) {
    const fresh = new Set<() => void>();
    abortWaiters.set(signal, fresh);
    signal.addEventListener(
      'abort',
      () => {
        for (const g of [...fresh]) g();
      },
      { once: true },
    );
    set = fresh;
  }
  set.add(f);
  const own = set;
  return () => own.delete(f);
}

/** Resolves after `ms`, when `signal` aborts, or when one of `wakers` is called, whichever is first. */
const delay = (ms: number, signal: AbortSignal | undefined, wakers: Set<() => void>) =>
  new Promise<void>((resolve) => {
    if (wakers.has(FIRED) || signal?.aborted) {
      wakers.delete(FIRED); // an event came while the state was being read
      return resolve();
    }
    const t = setTimeout(done, ms);
    const off = onAbort(signal, done);
    function done() {
      clearTimeout(t);
      off();
      wakers.delete(done);
      resolve();
    }
    wakers.add(done);
  });

/**
 * The coordinator's BullMQ queue of candidate evaluations. The coordinator is the only writer of
 * results.tsv and state.json: workers only return {@link JobResult}s, which BullMQ stores on the
 * finished job; a job delivered twice (at least once) still has one result, and the engine writes
 * one row per candidate.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options (names the field).
 * @example
 * const queue = createEvaluationQueue({ redis: 'redis://127.0.0.1:6379' });
 */
export function createEvaluationQueue(options: EvaluationQueueOptions): EvaluationQueue {
  const o = parseOptions(evaluationQueueOptionsSchema, options, 'workers-bullmq');
  const queue = new Queue(o.queue, { connection: connectionOf(o.redis) });
  const events = new QueueEvents(o.queue, { connection: connectionOf(o.redis) });
  // While Redis restarts the connections report errors; ioredis reconnects by itself and the poll
  // covers events missed meanwhile, so they are not failures of the run.
  queue.on('error', () => undefined);
  events.on('error', () => undefined);
  const waiting = new Map<string, Set<() => void>>();
  const wake = ({ jobId }: { jobId: string }) => {
    const wakers = waiting.get(jobId);
    if (!wakers) return;
    if (wakers.size === 0) wakers.add(FIRED);
    for (const f of [...wakers]) f();
  };
  events.on('completed', wake);
  events.on('failed', wake);
  let closed = false;
  const emit = (event: EvaluationQueueEvent) => o.onEvent?.(event);
  const add = (id: string, job: CandidateJob) =>
    queue.add('evaluate', job, {
      jobId: id,
      attempts: o.attempts,
      removeOnComplete: { age: o.keepResultsS },
      removeOnFail: { age: o.keepResultsS },
    });

  const follow = async (
    id: string,
    job: CandidateJob,
    signal: AbortSignal | undefined,
    wakers: Set<() => void>,
  ): Promise<EvaluationOutcome> => {
    const before = await queue.getJob(id);
    if (!before) await add(id, job);
    emit({ type: 'submitted', jobId: id, existing: before !== undefined });
    for (;;) {
      if (closed) throw new Error(`[loop] [workers-bullmq] queue ${o.queue} was closed while job ${id} was pending`);
      if (signal?.aborted) {
        await queue
          .getJob(id)
          .then((j) => j?.remove())
          .catch(() => undefined); // fails while a worker holds it: left to finish
        return { kind: 'aborted', jobId: id };
      }
      const state = await queue.getJobState(id);
      // read after the state: a finished job's fields are final
      const current = state === 'completed' || state === 'failed' ? await queue.getJob(id) : undefined;
      if (state === 'unknown' || ((state === 'completed' || state === 'failed') && !current)) {
        emit({
          type: 'resubmitted',
          jobId: id,
          why: 'the job is no longer in Redis (restarted without persistence, or removed)',
        });
        await add(id, job);
      } else if (state === 'completed' && current) {
        return {
          kind: 'evaluated',
          jobId: id,
          result: current.returnvalue as JobResult,
          attempts: current.attemptsMade,
        };
      } else if (state === 'failed' && current) {
        const reason = current.failedReason ?? 'unknown failure';
        emit({ type: 'failed', jobId: id, reason, attempts: current.attemptsMade });
        return { kind: 'failed', jobId: id, reason, attempts: current.attemptsMade };
      }
      await delay(o.pollMs, signal, wakers);
    }
  };

  return {
    name: `bullmq(${o.queue})`,
    evaluate: async (job, signal, occurrence = 0) => {
      const id = jobIdOf(job, occurrence);
      const wakers = waiting.get(id) ?? new Set<() => void>();
      waiting.set(id, wakers);
      try {
        return await follow(id, job, signal, wakers);
      } finally {
        wakers.delete(FIRED);
        if (wakers.size === 0) waiting.delete(id);
      }
    },
    workers: async () =>
      (await queue.getWorkers()).map((w) => ({
        name: (w.rawname ?? '').replace(/^.*?:w:/, ''),
        addr: w.addr ?? '',
        ageS: Number(w.age ?? 0),
      })),
    close: async () => {
      if (closed) return;
      closed = true;
      for (const wakers of waiting.values()) for (const f of [...wakers]) f();
      await events.close();
      await queue.close();
    },
  };
}
