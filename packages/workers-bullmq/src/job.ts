import { createHash } from 'node:crypto';
import { z } from 'zod';
import { filePatchSchema, patchDigest, type FilePatch } from './file-patch.js';

/** Version of the job format; a worker refuses a job of another version. */
export const JOB_FORMAT = 1;

/**
 * The command harness a worker runs, as data: the fields of core's `CommandHarnessOptions` that
 * mean the same on every machine. `cwd` is the worker's fresh working copy; machine-local fields
 * (`pidFile`, `writable`, `fingerprintPaths`, which hashes mtimes) are the worker's own.
 */
export interface HarnessSpec {
  /** The shell command (`/bin/sh -c`), for example `node train.mjs`. */
  readonly command: string;
  /** Log file relative to the working copy. @default 'run.log' */
  readonly logFile?: string;
  /** Time budget of one run in ms (seed 003 时间预算). @default 300000 */
  readonly timeBudgetMs?: number;
  /** Hard kill timeout in ms (seed 003 超时上限); the whole tree is killed past it. @default 2 × timeBudgetMs */
  readonly killTimeoutMs?: number;
  /** ms between SIGTERM and SIGKILL. @default 5000 */
  readonly graceMs?: number;
  /** Extra environment variables for the command. @default {} */
  readonly env?: Readonly<Record<string, string>>;
  /** Files (relative) whose bytes define the evaluation: the harness fingerprint. @default [] */
  readonly fingerprintFiles?: readonly string[];
  /** `auto` | `bwrap` | `none`: run the command in bubblewrap on the worker. @default 'none' */
  readonly sandbox?: 'auto' | 'bwrap' | 'none';
  /** Network inside the sandbox. @default false */
  readonly network?: boolean;
}

/** zod schema of {@link HarnessSpec}. */
export const harnessSpecSchema = z.object({
  command: z.string().trim().min(1),
  logFile: z.string().min(1).optional(),
  timeBudgetMs: z.number().int().positive().optional(),
  killTimeoutMs: z.number().int().positive().optional(),
  graceMs: z.number().int().nonnegative().optional(),
  env: z.record(z.string(), z.string()).optional(),
  fingerprintFiles: z.array(z.string()).optional(),
  sandbox: z.enum(['auto', 'bwrap', 'none']).optional(),
  network: z.boolean().optional(),
});

/** One candidate evaluation as a BullMQ job's data. */
export interface CandidateJob {
  /** {@link JOB_FORMAT}. */
  readonly format: number;
  /** The run this job belongs to (a worker keeps one clone per run). */
  readonly runId: string;
  /** The iteration (results row) the evaluation is for. */
  readonly iteration: number;
  /** The repeat of the same state (0 first; the engine's `repeat`). */
  readonly repeat: number;
  /** The seed the command gets as `LOOP_SEED`. */
  readonly seed?: number;
  /** The candidate's slot in its batch, for logs. */
  readonly k?: number;
  /** The commit the candidate is based on (the incumbent, full id). */
  readonly baseCommit: string;
  /** Where the worker fetches `baseCommit` from: a git path or URL (or a bundle file). */
  readonly remote: string;
  /** The candidate's change on top of `baseCommit`. */
  readonly patch: FilePatch;
  /** What the worker runs. */
  readonly harness: HarnessSpec;
  /** The coordinator's harness fingerprint for this candidate; the worker refuses a job whose own differs. */
  readonly fingerprint: string;
  /** Digest of the run's configuration (the coordinator's; different configs never share results). */
  readonly configDigest: string;
  /** {@link candidateDigest} of the fields above. */
  readonly digest: string;
}

/** zod schema of {@link CandidateJob}. */
export const candidateJobSchema = z.object({
  format: z.literal(JOB_FORMAT),
  runId: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/),
  iteration: z.number().int().min(0),
  repeat: z.number().int().min(0),
  seed: z.number().optional(),
  k: z.number().int().min(0).optional(),
  baseCommit: z.string().regex(/^[0-9a-f]{40,64}$/),
  remote: z.string().min(1),
  patch: filePatchSchema,
  harness: harnessSpecSchema,
  fingerprint: z.string(),
  configDigest: z.string(),
  digest: z.string(),
});

/** Who evaluated a job. */
export interface WorkerIdentity {
  /** `<host>:<pid>:<n>`, also the BullMQ worker name. */
  readonly id: string;
  readonly host: string;
  readonly pid: number;
}

/** What a worker returns for a job it ran (a crash or timeout is data here, as in a `RunRecord`). */
export interface JobResult {
  /** Exit code of the command, `null` when killed by a signal. */
  readonly exitCode: number | null;
  /** The signal that ended it, or `null`. */
  readonly signal: string | null;
  /** True when the kill timeout fired and the process tree was killed. */
  readonly timedOut: boolean;
  /** Wall time of the command on the worker, ms. */
  readonly durationMs: number;
  /** Why the run failed other than by its exit code (could not start, aborted). */
  readonly error?: string;
  /** The end of the log (at most the worker's `maxLogBytes`), written to the coordinator's log file. */
  readonly logTail: string;
  /** True when the log was longer than `logTail`. */
  readonly logTruncated: boolean;
  /** The worker that ran it. */
  readonly worker: WorkerIdentity;
  /** The job's {@link CandidateJob.digest}, echoed. */
  readonly digest: string;
  /**
   * Where the worker's time went, ms: `checkout` (fetch if needed, worktree, links), `prepare`
   * (patch, fingerprint), `run` (the command harness, clean-up of its processes included),
   * `collect` (the log's end). The worktree removal after the result is not in it.
   */
  readonly timings?: {
    readonly checkout: number;
    readonly prepare: number;
    readonly run: number;
    readonly collect: number;
  };
}

/**
 * sha256 (hex) over everything that defines an evaluation's outcome: base, patch, harness, fingerprint, config, seed.
 */
export function candidateDigest(
  job: Omit<CandidateJob, 'digest' | 'iteration' | 'repeat' | 'k' | 'runId' | 'remote' | 'format'>,
): string {
  return createHash('sha256')
    .update(
      `${job.baseCommit}\0${patchDigest(job.patch)}\0${job.fingerprint}\0${job.configDigest}\0${job.seed ?? ''}\0`,
    )
    .update(JSON.stringify(job.harness))
    .digest('hex');
}

/**
 * The BullMQ job id of an evaluation: one per (run, iteration, repeat, occurrence, candidate
 * digest), so adding the same evaluation twice (a resumed coordinator, a retried add) is a no-op
 * and BullMQ's at-least-once delivery still ends in one result. `occurrence` counts evaluations of
 * the same state in one coordinator process (an incumbent re-measured in every batch).
 */
export function jobIdOf(job: Pick<CandidateJob, 'runId' | 'iteration' | 'repeat' | 'digest'>, occurrence = 0): string {
  return `${job.runId}.${job.iteration}.${job.repeat}.${occurrence}.${job.digest.slice(0, 24)}`;
}

/** sha256 (hex) of a JSON-serialisable configuration: the default config digest. */
export function configDigestOf(config: unknown): string {
  return createHash('sha256').update(JSON.stringify(config)).digest('hex');
}
