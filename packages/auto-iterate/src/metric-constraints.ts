// Several metrics per run and constraints on them (issue 28) for the auto-iterate preset: the
// metric patterns, the constraint checks of the options, and the scorer and keep policy wrappers.
import { ConfigError, isLoopError, strictImprovement, type KeepPolicy, type Loop, type Scorer } from '@loop/core';
import {
  checkConstraintExpression,
  constraintMetrics,
  requireMetrics,
  withConstraints,
  type Constraint,
  type ConstraintMode,
} from '@loop/core/policies';
import { z } from 'zod';

/** A constraint of the options: its expression (blocking), or `{ rule, mode }`. */
export type AutoIterateConstraint = string | { readonly rule: string; readonly mode?: ConstraintMode };

/** The `metrics` option: names, or name → pattern. */
export type MetricsOption = readonly string[] | Readonly<Record<string, string>>;

/** One issue of the options, at a dotted path. */
interface Issue {
  readonly path: string;
  readonly message: string;
}

/** The default pattern of a metric name: `^<name>:\s*(\S+)` (the objective's default too). */
export function defaultMetricPattern(name: string): string {
  return `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\s*(\\S+)`;
}

/** zod schema of the `metrics` option: names (default patterns) or name → pattern. */
export const metricsOptionSchema = z.union([
  z.array(z.string().trim().min(1, 'a metric name must not be empty')),
  z.record(z.string().trim().min(1), z.string().min(1, 'a metric pattern must not be empty')),
]);

/** zod schema of one entry of the `constraints` option. */
export const constraintOptionSchema = z.union([
  z.string(),
  z.object({ rule: z.string(), mode: z.enum(['blocking', 'advisory']).default('blocking') }).strict(),
]);

/** The metrics option as name → pattern (a listed name gets {@link defaultMetricPattern}). */
export function metricPatterns(metrics: MetricsOption | undefined): Record<string, string> {
  if (!metrics) return {};
  if (Array.isArray(metrics)) return Object.fromEntries(metrics.map((n: string) => [n, defaultMetricPattern(n)]));
  return { ...(metrics as Record<string, string>) };
}

/**
 * The constraints parsed, each checked against the metrics: a bad expression, or a metric no
 * pattern defines (the objective `metricName` counts as defined), is an issue at `constraints.<i>`.
 */
export function checkConstraintOptions(
  constraints: readonly AutoIterateConstraint[],
  defined: readonly string[],
): { constraints: Constraint[]; issues: Issue[] } {
  const parsed: Constraint[] = [];
  const issues: Issue[] = [];
  constraints.forEach((c, i) => {
    const check = typeof c === 'string' ? checkConstraintExpression(c) : checkConstraintExpression(c.rule, c.mode);
    if (!check.ok) return void issues.push({ path: `constraints.${i}`, message: check.reason });
    const { metric, text } = check.constraint;
    if (!defined.includes(metric)) {
      const known = defined.length > 0 ? `the metrics are ${defined.join(', ')}` : 'no metrics are declared';
      const fix = `declare it under metrics (e.g. metrics: [${metric}]) or fix the name`;
      const message = `constraint "${text}" names the unknown metric ${metric} (${known}); ${fix}`;
      return void issues.push({ path: `constraints.${i}`, message });
    }
    parsed.push(check.constraint);
  });
  return { constraints: parsed, issues };
}

/** What {@link wireConstraints} builds. */
export interface ConstraintWiring {
  /** The scorer: every declared metric is required on the baseline, the constrained ones on every run. */
  readonly scorer: Scorer;
  /** The keep policy: `withConstraints(inner)` when there are constraints, else `inner` unchanged. */
  readonly keepPolicy: KeepPolicy | undefined;
  /** Call once the loop exists: the baseline's requirement ends at its `baseline` or `resumed` event. */
  readonly watch: (loop: Loop) => void;
  /** A `BASELINE_FAILED` for a missing metric as a `ConfigError` at the constraint or metric; others unchanged. */
  readonly explain: (error: unknown) => unknown;
}

/**
 * Wraps the scorer and keep policy for metrics and constraints. The baseline run is the check
 * that every declared metric is printed: one it lacks fails the run before any candidate as a
 * `CONFIG_INVALID` at `constraints.<i>` (or `metrics.<name>`), with the pattern that matched
 * nothing; later a run lacking a constrained metric is a crash row for that candidate.
 */
export function wireConstraints(
  scorer: Scorer,
  inner: KeepPolicy | undefined,
  patterns: Readonly<Record<string, string>>,
  constraints: readonly Constraint[],
  declaredAs?: MetricsOption,
): ConstraintWiring {
  // Where a metric is declared in the options: metrics.<index> of a list, metrics.<name> of a map.
  const pathOf = (name: string) => `metrics.${Array.isArray(declaredAs) ? declaredAs.indexOf(name) : name}`;
  const declared = Object.keys(patterns);
  const constrained = constraintMetrics(constraints);
  if (declared.length === 0) return { scorer, keepPolicy: inner, watch: () => {}, explain: (e) => e };
  let baselineDone = false;
  let missing: readonly string[] = [];
  const wrapped: Scorer = {
    ...scorer,
    score: async (run) => {
      const names = baselineDone ? constrained : declared;
      const result = await requireMetrics(scorer, names, (m) => void (missing = m)).score(run);
      if (result.ok) missing = [];
      return result;
    },
  };
  return {
    scorer: wrapped,
    keepPolicy: constraints.length === 0 ? inner : withConstraints(inner ?? strictImprovement(), constraints),
    watch: (loop) => {
      loop.on('baseline', () => void (baselineDone = true));
      loop.on('resumed', () => void (baselineDone = true));
    },
    explain: (error) => {
      if (!isLoopError(error, 'BASELINE_FAILED') || missing.length === 0 || baselineDone) return error;
      const issues = missing.map((name) => {
        const at = constraints.findIndex((c) => c.metric === name);
        const why =
          `metric ${name} is missing in the baseline run: no line of its log matches /${patterns[name]}/; ` +
          'the baseline must print every declared metric ' +
          `(check the pattern and that the run prints "${name}: <number>")`;
        if (at < 0) return { path: pathOf(name), message: why };
        return { path: `constraints.${at}`, message: `${why}, as constraint "${constraints[at]!.text}" needs it` };
      });
      return new ConfigError('auto-iterate', issues, error);
    },
  };
}
