import { writeJsonAtomic } from '@loop/core/files';
import { z } from 'zod';
import { readControlFile } from './internal/read-control-file.js';

/** The values of `last_round.recommended_action` (seed 004 "Stop Criteria"). */
export const RECOMMENDED_ACTIONS = ['continue', 'stop_success', 'stop_exhausted'] as const;
/**
 * `continue`: more targeted work is justified; `stop_success`: all high/medium items fixed or consciously parked;
 * `stop_exhausted`: no actionable fixes remain, or the same targeted improvement failed 3+ times.
 */
export type RecommendedAction = (typeof RECOMMENDED_ACTIONS)[number];

/** The round's record in loop_state.json, written last by each orchestrated round. */
export const lastRoundSchema = z.object({
  /** The round number, from 1. */
  round: z.number().int().positive(),
  /** What the controller should do next (seed 004). */
  recommended_action: z.enum(RECOMMENDED_ACTIONS),
  /** `evaluated`: the round ran its evaluation; `stale`: the sync check failed and the evaluation was skipped. */
  outcome: z.enum(['evaluated', 'stale']),
  /** Why this action: the stop criterion that fired, or the stale reason. */
  reason: z.string(),
  /** The round worker's one-line summary of its code changes. */
  summary: z.string(),
  /** The targeted improvements of the round (task ids). */
  targets: z.array(z.string()),
  /** Tasks parked (added to the exclusions file) by this round. */
  parked: z.array(z.string()),
  /** When the round finished, ISO 8601 UTC from the injected clock. */
  finished_at: z.string(),
});

/**
 * zod schema of loop_state.json, the only control-plane file (seed 004). Field names are the
 * seed's: `mode`, `status`, `last_round.recommended_action`, `stop_reason`.
 */
export const loopStateFileSchema = z.object({
  /** `auto` while the loop drives rounds (seed 004 step 3); `manual` otherwise. */
  mode: z.enum(['auto', 'manual']),
  /** `idle` before the first iteration, `running` while rounds run, `complete` once stopped (seed 004). */
  status: z.enum(['idle', 'running', 'complete']),
  /** The last finished round, or null before the first. */
  last_round: lastRoundSchema.nullable(),
  /** Set when status becomes complete: `<recommended_action>: <reason>`; null before. */
  stop_reason: z.string().nullable(),
  /** Last write by the controller, ISO 8601 UTC. */
  updated_at: z.string().optional(),
});

/** The contents of loop_state.json (see {@link loopStateFileSchema}). */
export type LoopStateFile = z.output<typeof loopStateFileSchema>;
/** One round's record (see {@link lastRoundSchema}). */
export type LastRound = z.output<typeof lastRoundSchema>;

/** The state `initAutotune` writes: `mode: manual`, `status: idle`, no round, no stop reason. */
export function initialLoopStateFile(): LoopStateFile {
  return { mode: 'manual', status: 'idle', last_round: null, stop_reason: null };
}

/**
 * Reads and validates loop_state.json. Writes nothing.
 *
 * @throws {LoopError} `STATE_CORRUPT` naming the file and field when it is missing, not JSON, or
 *   of the wrong shape (seed 004: loop_state.json is the only control plane).
 */
export function readLoopStateFile(path: string): Promise<LoopStateFile> {
  return readControlFile(path, loopStateFileSchema, 'create it with initAutotune()');
}

/**
 * Validates and writes loop_state.json atomically (core `writeJsonAtomic`: temp + fsync + rename +
 * directory fsync, re-read).
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path; the previous file is intact.
 */
export async function writeLoopStateFile(path: string, state: LoopStateFile): Promise<void> {
  await writeJsonAtomic(path, loopStateFileSchema.parse(state));
}
