import { writeJsonAtomic } from '@loop/core/files';
import { z } from 'zod';
import { readControlFile } from './internal/read-control-file.js';

/** One attempt at a targeted improvement. */
export const attemptSchema = z.object({
  /** The round that made the attempt. */
  round: z.number().int().positive(),
  /** `fixed`: the target's task passed after the round; `failed`: it still failed. */
  outcome: z.enum(['fixed', 'failed']),
  /** When it was recorded, ISO 8601 UTC. */
  at: z.string(),
});

/** The latest evaluation of one task (seed 004 "per-task updates"). */
export const taskStatusSchema = z.object({
  /** Whether the task's check passed in that round. */
  passed: z.boolean(),
  /** The round that last evaluated it. */
  round: z.number().int().positive(),
  /** The failure detail from the evaluation, if any. */
  detail: z.string().optional(),
});

/**
 * zod schema of scoreboard.json: attempts per targeted improvement (seed 004: "Use scoreboard.json
 * for retry and 'failed 3+ times' decisions") and the latest status of each task.
 */
export const scoreboardSchema = z.object({
  /** The file format version: 1. */
  version: z.literal(1),
  /** Attempts keyed by target id (a task id). At most one attempt per round per target. */
  targets: z.record(z.string(), z.object({ attempts: z.array(attemptSchema) })),
  /** Latest status keyed by task id. */
  tasks: z.record(z.string(), taskStatusSchema),
});

/** The contents of scoreboard.json (see {@link scoreboardSchema}). */
export type Scoreboard = z.output<typeof scoreboardSchema>;
/** One attempt (see {@link attemptSchema}). */
export type Attempt = z.output<typeof attemptSchema>;

/** An empty scoreboard. */
export function emptyScoreboard(): Scoreboard {
  return { version: 1, targets: {}, tasks: {} };
}

/**
 * The number of failed attempts recorded for `target`, computed from the scoreboard only (seed 004:
 * "not ad hoc memory").
 */
export function failedAttempts(scoreboard: Scoreboard, target: string): number {
  return (scoreboard.targets[target]?.attempts ?? []).filter((a) => a.outcome === 'failed').length;
}

/**
 * The targets that failed `threshold` or more times and whose task still fails (seed 004: "the
 * same targeted improvement failed 3+ times" forces stop_exhausted). Sorted by id.
 *
 * @param threshold failed attempts that exhaust a target. @default 3
 */
export function exhaustedTargets(scoreboard: Scoreboard, threshold = 3): string[] {
  return Object.keys(scoreboard.targets)
    .filter((id) => failedAttempts(scoreboard, id) >= threshold && scoreboard.tasks[id]?.passed !== true)
    .sort();
}

/**
 * Returns a new scoreboard with one attempt per target for `round` (replacing an attempt of the
 * same round, so a round re-run after a crash is not counted twice) and the latest task statuses.
 */
export function recordRound(
  scoreboard: Scoreboard,
  round: number,
  attempts: ReadonlyArray<{ target: string; outcome: Attempt['outcome'] }>,
  tasks: ReadonlyArray<{ id: string; passed: boolean; detail?: string | undefined }>,
  at: string,
): Scoreboard {
  const targets: Scoreboard['targets'] = {};
  for (const [id, entry] of Object.entries(scoreboard.targets)) targets[id] = { attempts: [...entry.attempts] };
  for (const { target, outcome } of attempts) {
    const kept = (targets[target]?.attempts ?? []).filter((a) => a.round !== round);
    targets[target] = { attempts: [...kept, { round, outcome, at }].sort((a, b) => a.round - b.round) };
  }
  const taskMap: Scoreboard['tasks'] = { ...scoreboard.tasks };
  for (const task of tasks) {
    taskMap[task.id] =
      task.detail === undefined ? { passed: task.passed, round } : { passed: task.passed, round, detail: task.detail };
  }
  return { version: 1, targets, tasks: taskMap };
}

/**
 * The scoreboard as it was before round `round`: every attempt of `round` or later removed (task
 * statuses are kept). A round that runs again after an interruption is handed this, never its own
 * interrupted attempts (issue 11 fault 8).
 */
export function scoreboardBefore(scoreboard: Scoreboard, round: number): Scoreboard {
  const targets: Scoreboard['targets'] = {};
  for (const [id, entry] of Object.entries(scoreboard.targets)) {
    const attempts = entry.attempts.filter((a) => a.round < round);
    if (attempts.length > 0) targets[id] = { attempts };
  }
  return { version: 1, targets, tasks: { ...scoreboard.tasks } };
}

/**
 * Reads and validates scoreboard.json. Writes nothing.
 *
 * @throws {LoopError} `STATE_CORRUPT` naming the file and field when missing, not JSON, or malformed.
 */
export function readScoreboard(path: string): Promise<Scoreboard> {
  return readControlFile(path, scoreboardSchema, 'create it with initAutotune()');
}

/**
 * Writes scoreboard.json atomically (core `writeJsonAtomic`).
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path; the previous file is intact.
 */
export async function writeScoreboard(path: string, scoreboard: Scoreboard): Promise<void> {
  await writeJsonAtomic(path, scoreboardSchema.parse(scoreboard));
}
