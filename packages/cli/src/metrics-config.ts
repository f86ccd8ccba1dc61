// The `metrics:` and `constraints:` blocks of a loop config (issue 28): several named metrics per
// run, and bounds on them that block (or warn about) a keep. See docs/metrics.md.
import { checkConstraintOptions, type AutoIterateConstraint, type MetricsOption } from '@loop/auto-iterate';
import { checkMetricPattern } from '@loop/core/scoring';
import { z } from 'zod';

const metricName = z
  .string()
  .trim()
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'a metric name holds letters, digits, _, . and -, starting with a letter or _');
/**
 * A metric's extraction regex, refused when core's `checkMetricPattern` refuses it (too many groups, a nested repeat).
 */
export const metricPatternSchema = z
  .string()
  .min(1)
  .superRefine((p, ctx) => {
    const check = checkMetricPattern(p);
    if (!check.ok) ctx.addIssue({ code: 'custom', message: check.reason });
  });

/** zod schema of `metrics:`: a list of names (each printed as `<name>: <value>`) or name → pattern. */
export const metricsSchema = z
  .union([z.array(metricName).min(1, 'name at least one metric'), z.record(metricName, metricPatternSchema)])
  .describe(
    "Named metrics besides the objective, read from the same log into each row's metrics: a list of names " +
      '(each printed as "<name>: <value>") or { name: pattern }. The baseline must print every one.',
  );

/** zod schema of one `constraints:` entry. */
export const constraintSchema = z.union([
  z.string().min(1).describe('A blocking constraint, e.g. "rss_mb <= baseline * 1.05".'),
  z
    .object({
      rule: z.string().min(1).describe('The bound, e.g. "latency_ms <= 200" or "rss_mb <= incumbent * 1.1".'),
      mode: z
        .enum(['blocking', 'advisory'])
        .default('blocking')
        .describe('blocking: a candidate breaking it is never kept; advisory: kept, with a warning. Default blocking.'),
    })
    .strict(),
]);

/** zod schema of `constraints:`. */
export const constraintsSchema = z
  .array(constraintSchema)
  .default([])
  .describe(
    'Bounds on metrics a keep must meet: "<metric> <= <bound>" or ">=", the bound a number, baseline or incumbent ' +
      '(times or plus a number). A string is blocking; { rule, mode: advisory } only warns. See docs/metrics.md.',
  );

/** The constraint issues of a config (bad expression, unknown metric), at `constraints.<i>`, for a superRefine. */
export function constraintIssues(c: {
  metrics?: MetricsOption | undefined;
  metricName?: string | undefined;
  constraints: readonly AutoIterateConstraint[];
}): { path: (string | number)[]; message: string }[] {
  const names = metricNames(c.metrics);
  const { issues } = checkConstraintOptions(c.constraints, [...names, ...(c.metricName ? [c.metricName] : [])]);
  const segments = (path: string) => path.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  return issues.map((i) => ({ path: segments(i.path), message: i.message }));
}

/** The names `metrics:` declares (its list, or its map's keys). */
function metricNames(metrics: MetricsOption | undefined): string[] {
  return Array.isArray(metrics) ? [...metrics] : Object.keys(metrics ?? {});
}

/** A tpe proposer's `costMetric` that `metrics:` does not declare, at `proposer.costMetric`, for a superRefine. */
export function costMetricIssues(c: {
  metrics?: MetricsOption | undefined;
  proposer?: { readonly type: string; readonly costMetric?: string } | undefined;
}): { path: (string | number)[]; message: string }[] {
  const cost = c.proposer?.costMetric;
  const names = metricNames(c.metrics);
  // An empty name is the schema's own error already.
  if (cost === undefined || cost === '' || names.includes(cost)) return [];
  const message =
    `costMetric ${JSON.stringify(cost)} is not one of metrics: ` + `(${names.join(', ') || 'none'}): add it there`;
  return [{ path: ['proposer', 'costMetric'], message }];
}
