import { z } from 'zod';
import { lastRoundSchema, loopStateFileSchema } from '../loop-state-file.js';
import { scoreboardSchema } from '../scoreboard.js';

/** The worker's improve result, validated. */
export const planSchema = z.object({
  summary: z.string(),
  targets: z.array(z.string().min(1)),
  changed: z.boolean().optional(),
});

/** The worker's evaluate result, validated. */
export const evaluationSchema = z.object({
  tasks: z.array(
    z.object({
      id: z.string().min(1),
      passed: z.boolean(),
      priority: z.enum(['high', 'medium', 'low']).optional(),
      detail: z.string().optional(),
    }),
  ),
  rationales: z.record(z.string(), z.string()).optional(),
});

/**
 * What the iteration's steps carry in the step machine's cursor (JSON). The round's context is the
 * snapshot taken when the round began, before any of its writes, so a round that runs again after
 * a kill sees what its first attempt saw (never its own attempts in the scoreboard).
 */
export const iterationDataSchema = z.object({
  /** The round's timestamp, ISO 8601 UTC, read once from the clock when the iteration entered. */
  at: z.string(),
  /** The round this iteration runs, or null when it runs none. */
  round: z.number().int().positive().nullable(),
  /**
   * The round's start snapshot: loop_state.json after marking running, the scoreboard without this round's attempts,
   * the exclusions.
   */
  context: z
    .object({ state: loopStateFileSchema, scoreboard: scoreboardSchema, excluded: z.array(z.string()) })
    .optional(),
  /** The validated plan, once improved. */
  plan: planSchema.optional(),
  /** Whether the code commit was requested. */
  codeCommitted: z.boolean().optional(),
  /** The sync check's outcome. */
  sync: z.union([z.object({ ok: z.literal(true) }), z.object({ ok: z.literal(false), reason: z.string() })]).optional(),
  /** The validated evaluation. */
  evaluation: evaluationSchema.optional(),
  /** The round's record as written to loop_state.json, once recorded. */
  lastRound: lastRoundSchema.optional(),
  /** The artifact files the round wrote besides loop_state.json, in write order, for the artifacts commit. */
  written: z.array(z.string()).optional(),
  /** Set by the last step: how the iteration ended. */
  end: z
    .object({
      outcome: z.enum(['already-complete', 'completed', 'continue']),
      report: z.string(),
      state: loopStateFileSchema,
    })
    .optional(),
});

/** The iteration's carried data (see {@link iterationDataSchema}). */
export type IterationData = z.output<typeof iterationDataSchema>;
