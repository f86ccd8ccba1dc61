import type { Evaluation } from './evaluation.js';
import { evaluateMemory, type MemoryOptions } from './memory.js';
import { evaluateSkillFull } from './skill-full.js';
import { evaluateSkill } from './skill.js';

/** The target types that have a built-in evaluator (seed 001; `code` uses the user's command). */
export const EVALUATOR_TARGETS = ['skill', 'skill-full', 'memory'] as const;

/** One of {@link EVALUATOR_TARGETS}. */
export type EvaluatorTarget = (typeof EVALUATOR_TARGETS)[number];

/** Options of {@link evaluate}: the memory evaluator's (the others take none). */
export type EvaluateOptions = MemoryOptions;

/**
 * Runs the evaluator of `type` on `path`.
 *
 * @throws {UnparseableTargetError} `TARGET_UNPARSEABLE` when the target cannot be read or parsed.
 */
export async function evaluate(
  type: EvaluatorTarget,
  path: string,
  options: EvaluateOptions = {},
): Promise<Evaluation> {
  if (type === 'skill') return evaluateSkill(path);
  if (type === 'skill-full') return evaluateSkillFull(path);
  return evaluateMemory(path, options);
}
