/**
 * Constraints on named metrics (issue 28): bounds a candidate's run measurements must meet,
 * absolute (`latency_ms <= 200`) or relative to the baseline's or the incumbent's value of the
 * same metric (`memory_mb <= baseline * 1.05`, `rss_mb <= incumbent + 10`). The keep policy
 * wrapper that enforces them is `withConstraints` (constrained-keep.ts); this file parses them
 * and measures how far a set of metrics is from meeting them.
 *
 * Grammar (whitespace free): `<metric> <op> <bound>` where `<metric>` is a metric name
 * (letters, digits, `_`, `.`, `-`, starting with a letter or `_`), `<op>` is `<=` or `>=`
 * (bounds are inclusive), and `<bound>` is a number, or `baseline` / `incumbent` optionally
 * followed by `* <number>`, `+ <number>` or `- <number>` (or preceded by `<number> *`).
 */
import { LoopError } from '../contracts/errors.js';
import type { CandidateData, IterationRecord } from '../contracts/iteration-record.js';

/** Whether a broken constraint blocks the keep (`blocking`) or only warns (`advisory`). */
export type ConstraintMode = 'blocking' | 'advisory';

/** What a relative bound is relative to: the baseline's (row 0's) or the incumbent's value of the metric. */
export type ConstraintReference = 'baseline' | 'incumbent';

/** A parsed constraint. The bound is `reference * factor + offset`, or `offset` when absolute. */
export interface Constraint {
  /** The metric it bounds (a key of `CandidateData.metrics`). */
  readonly metric: string;
  /** `<=`: the metric may not exceed the bound; `>=`: it may not fall below it. */
  readonly op: '<=' | '>=';
  /** The reference of a relative bound; absent for an absolute one. */
  readonly reference?: ConstraintReference;
  /** Multiplies the reference's value (1 for an absolute bound or `baseline + x`). */
  readonly factor: number;
  /** Added to `reference * factor`; the whole bound when absolute. */
  readonly offset: number;
  /** blocking (the default) or advisory. */
  readonly mode: ConstraintMode;
  /** The expression as written (trimmed), for messages. */
  readonly text: string;
}

/** The result of {@link checkConstraintExpression}. */
export type ConstraintExpressionCheck =
  { readonly ok: true; readonly constraint: Constraint } | { readonly ok: false; readonly reason: string };

const NAME = '[A-Za-z_][A-Za-z0-9_.-]*';
const NUMBER = '[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?';
const SHAPE = new RegExp(`^(${NAME})\\s*(<=|>=|<|>|==|=)\\s*(.+)$`);
const ABSOLUTE = new RegExp(`^(${NUMBER})$`);
const REF_AFTER = new RegExp(`^(baseline|incumbent)(?:\\s*([*+-])\\s*(${NUMBER}))?$`);
const REF_BEFORE = new RegExp(`^(${NUMBER})\\s*\\*\\s*(baseline|incumbent)$`);

/**
 * Parses a constraint expression without throwing: the constraint, or why it is refused (a
 * config loader reports the reason with the file and line).
 *
 * @param mode - blocking (the default) or advisory.
 */
export function checkConstraintExpression(text: string, mode: ConstraintMode = 'blocking'): ConstraintExpressionCheck {
  const source = text.trim();
  const shape = SHAPE.exec(source);
  const example =
    'write it as "<metric> <= <bound>" or "<metric> >= <bound>", the bound a number, baseline or incumbent ' +
    '(optionally * or + a number), e.g. "rss_mb <= baseline * 1.05"';
  if (!shape) return { ok: false, reason: `constraint "${source}" is not an expression a loop can check; ${example}` };
  const [, metric, op, rhs] = shape as unknown as [string, string, string, string];
  const refuse = (why: string): ConstraintExpressionCheck => ({ ok: false, reason: `constraint "${source}": ${why}` });
  if (op === '<' || op === '>') return refuse(`bounds are inclusive; write ${op}= instead of ${op}`);
  if (op !== '<=' && op !== '>=') return refuse(`${op} is not a bound; ${example}`);
  const bound = rhs.trim();
  const base = { metric, op, mode, text: source } as const;
  const abs = ABSOLUTE.exec(bound);
  if (abs) return finite(source, { ...base, factor: 1, offset: Number(abs[1]) });
  const after = REF_AFTER.exec(bound);
  if (after) {
    const reference = after[1] as ConstraintReference;
    const n = after[3] === undefined ? undefined : Number(after[3]);
    if (n === undefined) return { ok: true, constraint: { ...base, reference, factor: 1, offset: 0 } };
    if (after[2] === '*') return finite(source, { ...base, reference, factor: n, offset: 0 });
    return finite(source, { ...base, reference, factor: 1, offset: after[2] === '-' ? -n : n });
  }
  const before = REF_BEFORE.exec(bound);
  if (before) {
    const reference = before[2] as ConstraintReference;
    return finite(source, { ...base, reference, factor: Number(before[1]), offset: 0 });
  }
  return refuse(`the bound "${bound}" is not a number, baseline or incumbent (optionally * or + a number); ${example}`);
}

function finite(source: string, constraint: Constraint): ConstraintExpressionCheck {
  if (!Number.isFinite(constraint.factor) || !Number.isFinite(constraint.offset)) {
    return { ok: false, reason: `constraint "${source}": its number is not finite` };
  }
  return { ok: true, constraint };
}

/**
 * Parses a constraint expression (see the grammar in this module's comment).
 *
 * @throws {LoopError} `CONFIG_INVALID` naming the expression and what to write instead.
 * @example
 * parseConstraint('memory_mb <= baseline * 1.05')
 * // { metric: 'memory_mb', op: '<=', reference: 'baseline', factor: 1.05, offset: 0, mode: 'blocking', ... }
 */
export function parseConstraint(text: string, mode: ConstraintMode = 'blocking'): Constraint {
  const check = checkConstraintExpression(text, mode);
  if (!check.ok) {
    throw new LoopError('CONFIG_INVALID', `[loop] [constraints] ${check.reason}`, { details: { expression: text } });
  }
  return check.constraint;
}

/**
 * Where metrics come from: a plain `{ name: value }` record, a candidate record (`CandidateData`,
 * its `metrics`) or a row (`IterationRecord`, its `data.metrics`). `undefined`: no metrics.
 */
export type MetricsSource = Readonly<Record<string, number>> | CandidateData | IterationRecord | undefined;

/** The metrics of a {@link MetricsSource}. */
export function metricsOf(source: MetricsSource): Readonly<Record<string, number>> {
  if (source === undefined || source === null) return {};
  const s = source as Record<string, unknown>;
  if (typeof s.iteration === 'number' && typeof s.status === 'string') {
    return ((s.data as CandidateData | undefined)?.metrics ?? {}) as Record<string, number>;
  }
  if (s.metrics !== null && typeof s.metrics === 'object') return s.metrics as Record<string, number>;
  return source as Readonly<Record<string, number>>;
}

/** How one constraint fared on one candidate's metrics. */
export interface ConstraintCheck {
  /** The constraint. */
  readonly constraint: Constraint;
  /** The candidate's value of the metric, or `undefined` when it has none (a violation). */
  readonly value: number | undefined;
  /** The bound it was compared with, or `undefined` when the reference has no value. */
  readonly bound: number | undefined;
  /**
   * Optuna-style violation, in the metric's units: `<= 0` met, `> 0` broken by that much
   * (`value - bound` for `<=`, `bound - value` for `>=`); `+Infinity` when the candidate's value or
   * the reference's is missing or not finite.
   */
  readonly violation: number;
}

/** The value a constraint's bound takes, or `undefined` when its reference has no finite value. */
export function boundOf(constraint: Constraint, baseline: MetricsSource, incumbent: MetricsSource): number | undefined {
  if (!constraint.reference) return constraint.offset;
  const ref = metricsOf(constraint.reference === 'baseline' ? baseline : incumbent)[constraint.metric];
  return typeof ref === 'number' && Number.isFinite(ref) ? ref * constraint.factor + constraint.offset : undefined;
}

/** Each constraint checked on `candidate`'s metrics, in order (see {@link ConstraintCheck}). */
export function checkConstraints(
  constraints: readonly Constraint[],
  candidate: MetricsSource,
  baseline?: MetricsSource,
  incumbent?: MetricsSource,
): ConstraintCheck[] {
  const metrics = metricsOf(candidate);
  return constraints.map((constraint) => {
    const raw = metrics[constraint.metric];
    const value = typeof raw === 'number' && Number.isFinite(raw) ? raw : undefined;
    const bound = boundOf(constraint, baseline, incumbent);
    const missing = value === undefined || bound === undefined;
    const violation = missing ? Number.POSITIVE_INFINITY : constraint.op === '<=' ? value - bound : bound - value;
    return { constraint, value, bound, violation };
  });
}

/**
 * The feasibility function of a set of constraints, Optuna-style (`constraints_func`): one number
 * per constraint, in order, `<= 0` when met and `> 0` when broken (by that much, in the metric's
 * units); `+Infinity` when the candidate lacks the metric or a relative bound's reference does.
 * A point is feasible when every entry is `<= 0`. Advisory constraints are included (filter on
 * `constraint.mode` to model blocking ones only). What a model-based proposer fits its
 * feasibility model on.
 *
 * @param candidate - the candidate's metrics: a `{ name: value }` record, its `CandidateData` or its row.
 * @param baseline - the baseline's (row 0's) metrics, for `baseline`-relative bounds.
 * @param incumbent - the incumbent's (last kept row's) metrics, for `incumbent`-relative bounds.
 * @example constraintViolations([parseConstraint('rss_mb <= 100')], { rss_mb: 130 }) // [30]
 */
export function constraintViolations(
  constraints: readonly Constraint[],
  candidate: MetricsSource,
  baseline?: MetricsSource,
  incumbent?: MetricsSource,
): number[] {
  return checkConstraints(constraints, candidate, baseline, incumbent).map((c) => c.violation);
}

/** The metric names a set of constraints reads (each once, in first-use order). */
export function constraintMetrics(constraints: readonly Constraint[]): string[] {
  return [...new Set(constraints.map((c) => c.metric))];
}

const short = (x: number) => Number(x.toPrecision(6)).toString();

/**
 * One line about a broken constraint, for rows and summaries:
 * `rss_mb <= baseline * 1.05 broken: 130 > 126 (by 4, 3.17%)`, or `... : rss_mb missing`.
 */
export function describeViolation(check: ConstraintCheck): string {
  const { constraint: c, value, bound } = check;
  if (value === undefined) return `${c.text}: ${c.metric} missing`;
  if (bound === undefined) return `${c.text}: the ${c.reference} has no ${c.metric}`;
  const by = Math.abs(value - bound);
  const pct = bound !== 0 ? `, ${short((by / Math.abs(bound)) * 100)}%` : '';
  return `${c.text} broken: ${short(value)} ${c.op === '<=' ? '>' : '<'} ${short(bound)} (by ${short(by)}${pct})`;
}
