/**
 * @loop/evaluators: the fixed harness of auto-iterate's `skill`, `skill-full` and `memory`
 * targets (seed 001). Each evaluator is deterministic, scores its dimensions 0-10 and a weighted
 * total, and runs as the `loop-evaluate` command the proposer cannot edit: it prints one
 * `dim.<name>: <n>` line per dimension and `score: <n>` last, or a `--json` breakdown.
 *
 * @example
 * import { evaluateSkill, evaluatorInvocation } from '@loop/evaluators';
 *
 * const e = await evaluateSkill('skills/review/SKILL.md');
 * console.log(e.score, e.dimensions.map((d) => `${d.name}=${d.score}`).join(' '));
 * // as a loop harness: run `command`, fingerprint `harnessFiles`
 * const { command, harnessFiles } = evaluatorInvocation('skill', 'skills/review/SKILL.md');
 *
 * @packageDocumentation
 */
export { formatEvaluation, UnparseableTargetError } from './evaluation.js';
export type { DimensionScore, Evaluation } from './evaluation.js';
export { evaluateSkill, evaluateSkillText, VAGUE_WORDS } from './skill.js';
export type { SkillDimension } from './skill.js';
export { evaluateSkillFull } from './skill-full.js';
export type { SkillFullOptions } from './skill-full.js';
export { evaluateMemory } from './memory.js';
export type { MemoryOptions, MemoryQuestion } from './memory.js';
export { evaluate, EVALUATOR_TARGETS } from './run-evaluator.js';
export type { EvaluateOptions, EvaluatorTarget } from './run-evaluator.js';
export { evaluatorInvocation, evaluatorsPackageDir } from './command.js';
export type { EvaluatorInvocation, EvaluatorInvocationOptions } from './command.js';
export { main } from './evaluate-command.js';
