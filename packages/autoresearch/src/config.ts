import { z } from 'zod';
import { parseOptions } from '@loop/core';
import type { AutoresearchMode } from './statuses.js';

/** The seed's default quality-score target, 0-10 (`config.autoresearch.kpi_target`). */
export const DEFAULT_KPI_TARGET = 9.5;
/** The seed's default AR-2 internal apply/refine rounds (`ar_function.internal_rounds`). */
export const DEFAULT_INTERNAL_ROUNDS = 2;
/** Our default per-pass iteration cap (the per-pass program files are not part of seed 002). */
export const DEFAULT_MAX_ITERATIONS = 10;
/** Our default per-pass plateau (consecutive reverts) cap. */
export const DEFAULT_MAX_CONSECUTIVE_REVERTS = 3;
/** Our default AR-3 DEVELOP re-entry bound. */
export const DEFAULT_MAX_ACCEPTANCE_ROUNDS = 3;
/** Our default AR-3 pass-rate target (a fraction, 0-1). */
export const DEFAULT_PASS_RATE_TARGET = 1;

const caps = {
  max_iterations: z.number().int().positive().optional(),
  max_consecutive_reverts: z.number().int().positive().optional(),
};

/**
 * zod schema of `config.autoresearch` (seed 002): `{ kpi_target, ar_design: { max_iterations,
 * max_consecutive_reverts }, ar_function: { max_iterations, max_consecutive_reverts,
 * internal_rounds }, ar_acceptance: { max_acceptance_rounds, pass_rate_target } }`. Unknown keys
 * are rejected; `internal_rounds` under `ar_design` is rejected with its own message (a dead key).
 */
export const autoresearchConfigSchema = z.strictObject({
  kpi_target: z.number().min(0).max(10).optional(),
  ar_design: z
    .strictObject({
      ...caps,
      internal_rounds: z
        .never({
          error:
            'internal_rounds is an ar_function key only: AR-1 design does a single ' +
            'apply per iteration; remove it from ar_design',
        })
        .optional(),
    })
    .optional(),
  ar_function: z.strictObject({ ...caps, internal_rounds: z.number().int().min(1).optional() }).optional(),
  ar_acceptance: z
    .strictObject({
      max_acceptance_rounds: z.number().int().positive().optional(),
      pass_rate_target: z.number().min(0).max(1).optional(),
    })
    .optional(),
});

/** `config.autoresearch` as written in `.aid/pipeline/config.json`. */
export type AutoresearchConfig = z.input<typeof autoresearchConfigSchema>;

/** One pass's resolved settings. */
export interface PassConfig {
  /** The pass. */
  readonly mode: AutoresearchMode;
  /** Quality-score target, 0-10. @default 9.5 */
  readonly kpiTarget: number;
  /** Iteration cap (design and function). @default 10 */
  readonly maxIterations: number;
  /** Plateau: consecutive reverted / reverted-redtest / crash iterations (design and function). @default 3 */
  readonly maxConsecutiveReverts: number;
  /**
   * Apply/refine rounds before official scoring: `internal_rounds` in function mode (default 2), always 1 in design.
   */
  readonly internalRounds: number;
  /** AR-3 DEVELOP re-entry bound. @default 3 */
  readonly maxAcceptanceRounds: number;
  /** AR-3 pass-rate target, 0-1. @default 1 */
  readonly passRateTarget: number;
  /** One line per default taken for an absent value ("state the assumption"). */
  readonly assumptions: readonly string[];
}

/**
 * Resolves one pass's settings from `config.autoresearch` with the seed's defaults, recording
 * every default taken in `assumptions` (seed 002 standalone: "if a value is absent, use the defaults
 * ... and state the assumption").
 *
 * @throws {ConfigError} `CONFIG_INVALID` for an invalid config, naming the field; `ar_design.internal_rounds` is always
 * invalid.
 */
export function resolvePassConfig(mode: AutoresearchMode, config: unknown = {}): PassConfig {
  const c = parseOptions(autoresearchConfigSchema, config ?? {}, 'autoresearch config');
  const assumptions: string[] = [];
  const pick = <T>(value: T | undefined, fallback: T, key: string): T => {
    if (value !== undefined) return value;
    assumptions.push(`config.autoresearch.${key} is absent: using the default ${String(fallback)}`);
    return fallback;
  };
  const kpiTarget = pick(c.kpi_target, DEFAULT_KPI_TARGET, 'kpi_target');
  if (mode === 'acceptance') {
    const a = c.ar_acceptance ?? {};
    return {
      mode,
      kpiTarget,
      maxIterations: 1,
      maxConsecutiveReverts: 1,
      internalRounds: 1,
      maxAcceptanceRounds: pick(
        a.max_acceptance_rounds,
        DEFAULT_MAX_ACCEPTANCE_ROUNDS,
        'ar_acceptance.max_acceptance_rounds',
      ),
      passRateTarget: pick(a.pass_rate_target, DEFAULT_PASS_RATE_TARGET, 'ar_acceptance.pass_rate_target'),
      assumptions,
    };
  }
  const key = mode === 'design' ? 'ar_design' : 'ar_function';
  const p = (mode === 'design' ? c.ar_design : c.ar_function) ?? {};
  return {
    mode,
    kpiTarget,
    maxIterations: pick(p.max_iterations, DEFAULT_MAX_ITERATIONS, `${key}.max_iterations`),
    maxConsecutiveReverts: pick(
      p.max_consecutive_reverts,
      DEFAULT_MAX_CONSECUTIVE_REVERTS,
      `${key}.max_consecutive_reverts`,
    ),
    internalRounds:
      mode === 'function'
        ? pick(c.ar_function?.internal_rounds, DEFAULT_INTERNAL_ROUNDS, 'ar_function.internal_rounds')
        : 1,
    maxAcceptanceRounds: DEFAULT_MAX_ACCEPTANCE_ROUNDS,
    passRateTarget: DEFAULT_PASS_RATE_TARGET,
    assumptions,
  };
}
