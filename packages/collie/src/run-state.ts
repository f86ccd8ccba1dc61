import { LoopError } from '@loop/core';
import { readJson, writeJsonAtomic } from '@loop/core/files';
import { z } from 'zod';

/** The sentinel the terminal branch emits (seed 000). */
export const PROMISE_SIGNAL = 'Collie: AUTOITER DONE';

/** state.json statuses (seed 000 §3.5). */
export const RUN_STATUSES = ['running', 'iter_done', 'converged', 'budget_exhausted', 'escalated'] as const;
/** One of {@link RUN_STATUSES}. */
export type RunStatus = (typeof RUN_STATUSES)[number];
/** True for converged / budget_exhausted / escalated. */
export const isTerminal = (s: RunStatus): boolean => s === 'converged' || s === 'budget_exhausted' || s === 'escalated';

/** The stage a `running` iteration resumes at (our addition: finer than the seed's "re-enter Stage 1"). */
export const RUNNING_STAGES = [
  'kickoff',
  'trigger',
  'observe',
  'recover',
  'triage',
  'verify',
  'plan',
  'flow',
  'audit',
  'rerun',
] as const;

/** One finished iteration, recorded by Stage 5.3. */
export const iterationEntrySchema = z.object({
  iter: z.number().int().positive(),
  scalar_before: z.number().nullable(),
  scalar_after: z.number().nullable(),
  scalar_delta: z.number().nullable(),
  exit_code: z.number().nullable(),
  error_signature: z.string().nullable(),
  /**
   * Distinct files of the real Stage 5.1 branch diff (the FIX commits, whoever made them; 0 when none was applied);
   * null = not measured.
   */
  files_changed: z.number().int().nonnegative().nullable(),
  /** FIX ids committed by Stage 5.1. */
  fixes_applied: z.array(z.string()).default([]),
  /** Stage 6's rollback (null until Stage 6 ran or when nothing was applied). */
  rollback: z
    .object({
      /** The matrix row that applied. */
      row: z.string(),
      /** FIX ids reverted, with the commits they were applied in. */
      reverted: z.array(z.object({ id: z.string(), commit: z.string() })),
      /** The single revert commit, or null when nothing was reverted. */
      commit: z.string().nullable(),
    })
    .nullable()
    .default(null),
});

/** One attempt of the Stage 3.2 auto-recovery ladder. */
export const ladderAttemptSchema = z.object({
  attempt: z.number().int().positive(),
  tier: z.enum(['fast', 'standard', 'deep']),
  root_cause: z.string(),
  fix_applied: z.string(),
  result: z.enum(['pass', 'fail']),
});

/** The ladder's progress (null outside a recovery). */
export const ladderSchema = z.object({
  /** The tier of the next attempt. */
  tier: z.enum(['fast', 'standard', 'deep']),
  attempts: z.array(ladderAttemptSchema),
});

/** zod schema of state.json: the seed's fields plus the resume cursor and the stop-check facts. */
export const runStateSchema = z.object({
  runId: z.string().min(1),
  iter: z.number().int().positive(),
  status: z.enum(RUN_STATUSES),
  should_continue: z.boolean(),
  stop_reason: z.string().nullable(),
  last_scalar: z.number().nullable(),
  baseline_scalar: z.number().nullable(),
  promise_signal: z.literal(PROMISE_SIGNAL),
  /** Where a `running` iteration resumes. */
  stage: z.enum(RUNNING_STAGES),
  /** When the run's state was initialised, ms since the epoch (injected clock). */
  started_at: z.number(),
  /** Tokens used by agents so far (SC4). */
  tokens_used: z.number().nonnegative(),
  /** Every finished iteration (SC3, SC5, G7). */
  iterations: z.array(iterationEntrySchema),
  /** The current iteration's auto-recovery ladder, or null. */
  ladder: ladderSchema.nullable(),
  /**
   * The worktree's HEAD when the current iteration's Stage 1 ran (null when the worktree is not a
   * git working-tree root, i.e. has no `.git`): G1 (Stages 3.2 and 5.2) audits the real branch diff from here, whoever
   * made
   * the commits.
   */
  iter_start: z.string().nullable().default(null),
});
/** The contents of state.json. */
export type RunState = z.output<typeof runStateSchema>;
/** One finished iteration. */
export type IterationEntry = z.output<typeof iterationEntrySchema>;
/** One ladder attempt. */
export type LadderAttempt = z.output<typeof ladderAttemptSchema>;

/** The state Branch B initialises (seed 000 §3.5 step 6). */
export function initialRunState(runId: string, now: number): RunState {
  return {
    runId,
    iter: 1,
    status: 'running',
    should_continue: true,
    stop_reason: null,
    last_scalar: null,
    baseline_scalar: null,
    promise_signal: PROMISE_SIGNAL,
    stage: 'kickoff',
    started_at: now,
    tokens_used: 0,
    iterations: [],
    ladder: null,
    iter_start: null,
  };
}

/**
 * Reads state.json.
 *
 * @returns the state, or undefined when the file does not exist.
 * @throws {LoopError} `STATE_CORRUPT` naming the path and field when it is malformed.
 */
export async function readRunState(path: string): Promise<RunState | undefined> {
  const raw = await readJson(path);
  if (raw === undefined) return undefined;
  const r = runStateSchema.safeParse(raw);
  if (!r.success) {
    throw new LoopError(
      'STATE_CORRUPT',
      `[loop] [collie] ${path} is ` +
        `malformed: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      { details: { path } },
    );
  }
  return r.data;
}

/** Validates and writes state.json atomically (core `writeJsonAtomic`). */
export async function writeRunState(path: string, state: RunState): Promise<void> {
  await writeJsonAtomic(path, runStateSchema.parse(state));
}
