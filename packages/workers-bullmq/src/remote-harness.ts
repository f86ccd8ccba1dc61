import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { createCommandHarness, parseOptions, systemClock, type Clock, type Harness, type RunRecord } from '@loop/core';
import { keepRunLog, type KeepLogsOptions } from '@loop/core/harness';
import { headSha } from '@loop/rollback-git/git';
import type { EvaluationQueue } from './evaluation-queue.js';
import { readFilePatch } from './file-patch.js';
import {
  JOB_FORMAT,
  candidateDigest,
  configDigestOf,
  harnessSpecSchema,
  jobIdOf,
  type CandidateJob,
  type HarnessSpec,
} from './job.js';

/** Options of {@link createRemoteHarness}, validated by {@link remoteHarnessOptionsSchema}. */
export interface RemoteHarnessOptions {
  /** The coordinator's queue ({@link createEvaluationQueue}). */
  queue: EvaluationQueue;
  /** Absolute directory whose mutable paths are the candidate (the main workspace or a working copy). */
  root: string;
  /** Absolute path of the coordinator's git repository: its HEAD is the base commit. */
  repository: string;
  /** What workers fetch the base commit from (a path or URL they can reach). @default repository */
  remote?: string;
  /** Relative paths that make the candidate; shipped whole ({@link FilePatch}). */
  mutable: string[];
  /** The command harness workers run. */
  harness: HarnessSpec;
  /** The run's id (`[A-Za-z0-9_-]`, at most 80): a worker keeps one clone per run; results are keyed by it. */
  runId: string;
  /** Digest of the run's configuration. @default sha256 of `harness` */
  configDigest?: string;
  /** The candidate's slot in its batch, for logs. */
  k?: number;
  /** Clock for the duration of a failed job's record. @default systemClock */
  clock?: Clock;
  /**
   * Keep each run's returned log as `<dir>/<iteration>.log` on the coordinator, the newest `count`
   * (core `keepRunLog`, as the command harness's `keepLogs`); a copy's `root` goes with the copy.
   * @default none
   */
  keepLogs?: KeepLogsOptions;
}

/** zod schema of {@link RemoteHarnessOptions}. */
export const remoteHarnessOptionsSchema = z.object({
  queue: z.custom<EvaluationQueue>(
    (q) => typeof (q as EvaluationQueue)?.evaluate === 'function',
    'queue must be an EvaluationQueue',
  ),
  root: z.string().refine(isAbsolute, 'root must be absolute'),
  repository: z.string().refine(isAbsolute, 'repository must be absolute'),
  remote: z.string().min(1).optional(),
  mutable: z.array(z.string().min(1)).min(1),
  harness: harnessSpecSchema,
  runId: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'runId must be 1-80 of A-Z a-z 0-9 _ -'),
  configDigest: z.string().min(1).optional(),
  k: z.number().int().min(0).optional(),
  clock: z.custom<Clock>((c) => c === undefined || typeof (c as Clock).now === 'function').optional(),
  keepLogs: z
    .object({
      dir: z.string().refine(isAbsolute, 'keepLogs.dir must be absolute'),
      count: z.number().int().nonnegative(),
    })
    .strict()
    .optional(),
});

/**
 * A harness that evaluates `root` on a remote worker: `run()` reads the base commit (the
 * repository's HEAD) and the mutable paths of `root`, submits a {@link CandidateJob}, waits for
 * its result, writes the returned log tail to `root/<logFile>` (so the loop's scorer reads it as
 * it would a local log) and returns the run record. A job the workers refused or that failed for
 * good is a record with `error` (a `harness-error` crash row naming the worker and the reason).
 * `fingerprint()` is the command harness's fingerprint over `root`, the one the worker must match.
 *
 * Use it as the loop's own harness (baseline and `remeasureIncumbent` then run on workers too, so
 * hardware differences cannot fake a win) and, through {@link createRemoteWorkingCopies}, for
 * parallel candidates.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options.
 * @throws {LoopError} `NOT_A_REPOSITORY` from `run()` when `repository` has no HEAD.
 */
export function createRemoteHarness(options: RemoteHarnessOptions): Harness {
  const o = parseOptions(remoteHarnessOptionsSchema, options, 'workers-bullmq');
  const spec = o.harness as HarnessSpec;
  const local = createCommandHarness({
    ...spec,
    env: { ...spec.env },
    fingerprintFiles: [...(spec.fingerprintFiles ?? [])],
    cwd: o.root,
    sandbox: 'none',
  });
  const logPath = resolve(o.root, spec.logFile ?? 'run.log');
  const configDigest = o.configDigest ?? configDigestOf(spec);
  const occurrences = new Map<string, number>();
  return {
    name: `remote(${spec.command})`,
    fingerprint: () => local.fingerprint!(),
    run: async ({ iteration, signal, seed, repeat = 0 }): Promise<RunRecord> => {
      const clock = o.clock ?? systemClock;
      const started = clock.now();
      const baseCommit = await headSha({ cwd: o.repository });
      const patch = await readFilePatch(o.root, o.mutable);
      const fingerprint = await local.fingerprint!();
      const body = {
        baseCommit,
        patch,
        harness: spec,
        fingerprint,
        configDigest,
        ...(seed !== undefined ? { seed } : {}),
      };
      const job: CandidateJob = {
        format: JOB_FORMAT,
        runId: o.runId,
        iteration,
        repeat,
        ...(o.k !== undefined ? { k: o.k } : {}),
        remote: o.remote ?? o.repository,
        ...body,
        digest: candidateDigest(body),
      };
      const key = jobIdOf(job);
      const occurrence = occurrences.get(key) ?? 0;
      occurrences.set(key, occurrence + 1);
      const outcome = await o.queue.evaluate(job, signal, occurrence);
      await mkdir(dirname(logPath), { recursive: true });
      // The returned log is kept like a local run's (best effort: a failed copy does not fail the run).
      const keep = async () =>
        o.keepLogs ? keepRunLog(logPath, o.keepLogs, iteration, repeat).catch(() => undefined) : undefined;
      if (outcome.kind === 'evaluated') {
        const r = outcome.result;
        await writeFile(logPath, r.logTail);
        await keep();
        return {
          exitCode: r.exitCode,
          signal: r.signal,
          timedOut: r.timedOut,
          durationMs: r.durationMs,
          logPath,
          ...(r.error ? { error: r.error } : {}),
        };
      }
      const error =
        outcome.kind === 'aborted'
          ? 'aborted'
          : `evaluation job ${outcome.jobId} failed after ${outcome.attempts} attempt(s): ${outcome.reason}`;
      await writeFile(logPath, `${error}\n`);
      await keep();
      return { exitCode: null, signal: null, timedOut: false, durationMs: clock.now() - started, logPath, error };
    },
  };
}
