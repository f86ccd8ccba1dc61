import type { z } from 'zod';

/**
 * The stable codes of {@link LoopError}. Callers branch on `code`, never on the message.
 *
 * - `CONFIG_INVALID`: options or a config file failed validation (see {@link ConfigError}).
 * - `DIRTY_WORKTREE`: the git working tree has uncommitted changes at start.
 * - `LOCK_HELD`: another loop already drives this workspace.
 * - `RESTORE_FAILED`: a revert or restore did not leave the workspace at the kept state (seed 002 `restore-failed`).
 * - `STATE_WRITE_FAILED`: state.json could not be written or re-read (seed 002 `state-write-failed`).
 * - `RESULTS_CORRUPT`: results.tsv exists but cannot be parsed (wrong header, wrong column count).
 * - `BRANCH_EXISTS`: the run branch already exists and the run is not a resume.
 * - `NOT_A_REPOSITORY`: the workspace is not a git repository.
 * - `BASELINE_FAILED`: the baseline evaluation crashed, so there is nothing to compare against.
 * - `HARNESS_TAMPERED`: the harness fingerprint changed during a run.
 * - `PROPOSER_FAILED`: the proposer threw or its command failed in a way that is not a candidate crash.
 * - `RESUME_MISMATCH`: results.tsv and the workspace disagree (for example the kept commit is missing).
 * - `HARNESS_FAILED`: the harness could not be started at all (for example the log file cannot be opened).
 * - `STATE_CORRUPT`: state.json exists but is not valid JSON of the expected shape.
 * - `EFFECT_IN_DOUBT`: a step machine effect was started before a kill, never recorded done, and is neither idempotent
 *   nor reconcilable.
 * - `TRIAL_OPEN`: `Loop.ask` or `Loop.step` while a trial is open (tell or stop it first).
 * - `TRIAL_UNKNOWN`: `Loop.tell` of a trial that is not the open one (never asked, already told, another loop's).
 * - `LOOP_STOPPED`: `Loop.ask`, `tell` or `step` after the loop stopped (its summary is in `details.summary`).
 * - `EDIT_OUTSIDE_ARTIFACT`: `Loop.tell` of an edit that changed a path outside the artifact's mutable surface; nothing
 *   was touched and the trial stays open.
 * - `HOLDOUT_NOT_SEALED`: a sealed holdout cannot be sealed (its files inside the workspace, in its git objects,
 *   hard-linked, or no working sandbox for the proposer); the run refuses to start.
 */
export const LOOP_ERROR_CODES = [
  'CONFIG_INVALID',
  'DIRTY_WORKTREE',
  'LOCK_HELD',
  'RESTORE_FAILED',
  'STATE_WRITE_FAILED',
  'RESULTS_CORRUPT',
  'BRANCH_EXISTS',
  'NOT_A_REPOSITORY',
  'BASELINE_FAILED',
  'HARNESS_TAMPERED',
  'PROPOSER_FAILED',
  'RESUME_MISMATCH',
  'HARNESS_FAILED',
  'STATE_CORRUPT',
  'EFFECT_IN_DOUBT',
  'TRIAL_OPEN',
  'TRIAL_UNKNOWN',
  'LOOP_STOPPED',
  'EDIT_OUTSIDE_ARTIFACT',
  'HOLDOUT_NOT_SEALED',
] as const;

/** One of {@link LOOP_ERROR_CODES}. */
export type LoopErrorCode = (typeof LOOP_ERROR_CODES)[number];

/** Options of {@link LoopError}. */
export interface LoopErrorOptions {
  /** The original error (an fs errno, an isomorphic-git error, a zod error). */
  cause?: unknown;
  /** Machine-readable facts: the files, the field path, the lock path. */
  details?: Record<string, unknown>;
}

/**
 * The one error class of loop. `code` is stable; the message says where the error came from and
 * what to do, prefixed `[loop] [<component>]`.
 */
export class LoopError extends Error {
  override readonly name: string = 'LoopError';
  /** The stable code, one of {@link LOOP_ERROR_CODES}. */
  readonly code: LoopErrorCode;
  /** Machine-readable facts about the failure. */
  readonly details: Record<string, unknown>;

  constructor(code: LoopErrorCode, message: string, options: LoopErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details ?? {};
  }
}

/** One invalid field: its dotted path (for example `timeBudgetS` or `space.lr.min`) and why. */
export interface ConfigIssue {
  /** Dotted path of the field; empty for the whole object. */
  path: string;
  /** What is wrong, from zod. */
  message: string;
}

/** A `CONFIG_INVALID` error carrying every invalid field with its path. */
export class ConfigError extends LoopError {
  override readonly name = 'ConfigError';
  /** Every invalid field. */
  readonly issues: readonly ConfigIssue[];

  constructor(where: string, issues: readonly ConfigIssue[], cause?: unknown) {
    const list = issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ');
    super('CONFIG_INVALID', `[loop] [${where}] invalid options: ${list}`, { cause, details: { issues } });
    this.issues = issues;
  }
}

/**
 * Validates `input` with a zod schema at a factory boundary and returns the parsed value (with
 * defaults applied).
 *
 * @throws {ConfigError} `CONFIG_INVALID`, naming every invalid field by its path.
 */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  throw new ConfigError(where, issues, result.error);
}

/** True when `error` is a {@link LoopError}, optionally with the given code. */
export function isLoopError(error: unknown, code?: LoopErrorCode): error is LoopError {
  return error instanceof LoopError && (code === undefined || error.code === code);
}
