/** One scored dimension of an evaluation. */
export interface DimensionScore {
  /** The dimension's name, e.g. `trigger_quality` (snake_case; printed as `dim.<name>: <score>`). */
  readonly name: string;
  /** Its share of the total, 0-1; the weights of one evaluator sum to 1. */
  readonly weight: number;
  /** The dimension's score, 0-10, rounded to two decimals. */
  readonly score: number;
  /** Why it scored what it did: one short line per finding (what was found, what is missing). */
  readonly notes: readonly string[];
}

/** What an evaluator returns: the weighted total and its parts. */
export interface Evaluation {
  /** Which evaluator: `skill`, `skill-full` or `memory`. */
  readonly evaluator: 'skill' | 'skill-full' | 'memory';
  /** The evaluated path as given. */
  readonly target: string;
  /** The weighted total, 0-10, rounded to two decimals: the sum of `weight × score`. */
  readonly score: number;
  /** Every dimension, in the evaluator's published order. */
  readonly dimensions: readonly DimensionScore[];
}

/**
 * Thrown when the target cannot be evaluated at all (invalid YAML frontmatter, no SKILL.md, a
 * missing folder): the bin prints it and exits 2 without a score line, so the loop records a
 * `crash` row and discards the candidate (seed 001: 语法错误/不可解析 → discard + 记录 crash).
 */
export class UnparseableTargetError extends Error {
  /** Always `TARGET_UNPARSEABLE`. */
  readonly code = 'TARGET_UNPARSEABLE';
  override readonly name = 'UnparseableTargetError';
}

/** Rounds to two decimals (the precision every evaluator reports). */
export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Clamps to the 0-10 scale. */
export function clamp10(n: number): number {
  return Math.min(10, Math.max(0, n));
}

/** A dimension from its raw score (clamped to 0-10 and rounded). */
export function dimension(name: string, weight: number, score: number, notes: string[]): DimensionScore {
  return { name, weight, score: round2(clamp10(score)), notes };
}

/** The weighted total of `dimensions` (weights sum to 1), rounded to two decimals. */
export function weightedTotal(dimensions: readonly DimensionScore[]): number {
  return round2(dimensions.reduce((sum, d) => sum + d.weight * d.score, 0));
}

/**
 * The text form the loop reads: one `dim.<name>: <score>` line per dimension, then
 * `score: <total>` last (auto-iterate's default pattern `^score:\s*(\S+)` takes the last match).
 */
export function formatEvaluation(e: Evaluation): string {
  return [...e.dimensions.map((d) => `dim.${d.name}: ${d.score}`), `score: ${e.score}`].join('\n');
}

/** Files of a loop run that live in a target's folder and are never part of what is evaluated. */
export const RUN_FILE_NAMES: ReadonlySet<string> = new Set(['results.tsv', 'dimensions.tsv', 'run.log']);
