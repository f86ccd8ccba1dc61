import {
  checkConstraints,
  constraintMetrics,
  describeViolation,
  parseConstraint,
  type Constraint,
  type ConstraintCheck,
} from './constraints.js';
import type { CandidateData } from '../contracts/iteration-record.js';
import type { KeepDecision, KeepInput, KeepPolicy } from '../contracts/keep-policy.js';
import { readLogTail } from '../harness/log-tail.js';
import type { Scorer, ScoreResult } from '../contracts/scorer.js';

/** A constraint as parsed, or its expression (blocking). */
export type ConstraintInput = Constraint | string;

/** What {@link withConstraints} records under `data.constraints` of every candidate it decides. */
export interface ConstraintVerdict {
  /** The metric values the constraints were checked on: the mean over the candidate's samples. */
  readonly values: Readonly<Record<string, number>>;
  /** Samples the values are the mean of. */
  readonly samples: number;
  /** Each broken constraint: its expression, mode, value, bound and violation (metric units). */
  readonly violations: readonly ConstraintViolationRecord[];
  /**
   * Every constraint's violation in order, Optuna-style (`<= 0` met, `> 0` by how much; `null` for
   * a missing metric or reference, i.e. infeasible): what {@link recordedViolations} reads back.
   */
  readonly feasibility: readonly (number | null)[];
}

/**
 * The constraint violations the keep policy recorded for a row (`data.constraints.feasibility` of
 * {@link withConstraints}), Optuna-style: one value per constraint in order, `<= 0` met, `> 0` broken
 * by that much, `+Infinity` for a missing metric; `undefined` when the row has none (the baseline, a
 * crash, a run without constraints). Usable as a proposer's constraints function: it gives the
 * values the keep decision itself was made on (bounds relative to the baseline and the incumbent of
 * that moment).
 */
export function recordedViolations(record: { readonly data?: CandidateData }): number[] | undefined {
  const verdict = record.data?.constraints as Partial<ConstraintVerdict> | undefined;
  if (!verdict || !Array.isArray(verdict.feasibility)) return undefined;
  return verdict.feasibility.map((v) => (typeof v === 'number' ? v : Number.POSITIVE_INFINITY));
}

/** One broken constraint as a row records it (JSON: a missing value, bound or amount is `null`). */
export interface ConstraintViolationRecord {
  /** The expression as written. */
  readonly constraint: string;
  /** blocking or advisory. */
  readonly mode: Constraint['mode'];
  /** The value checked, `null` when the metric was missing. */
  readonly value: number | null;
  /** The bound, `null` when the reference had no value. */
  readonly bound: number | null;
  /** By how much (`> 0`, metric units), `null` when unknown. */
  readonly violation: number | null;
}

/** The constraints of a list of inputs, parsed. @throws {LoopError} `CONFIG_INVALID` for a bad expression. */
export function toConstraints(inputs: readonly ConstraintInput[]): Constraint[] {
  return inputs.map((c) => (typeof c === 'string' ? parseConstraint(c) : c));
}

/** The per-metric mean over the samples that have each metric (the first sample's record when none). */
function meanMetrics(input: KeepInput, names: readonly string[]): { values: Record<string, number>; samples: number } {
  type Metrics = Readonly<Record<string, number>>;
  const defined = (m: Metrics | undefined): m is Metrics => m !== undefined;
  const perSample = (input.candidateMetrics ?? []).filter(defined);
  const samples = perSample.length > 0 ? perSample : input.candidateData?.metrics ? [input.candidateData.metrics] : [];
  const values: Record<string, number> = {};
  for (const name of names) {
    const xs = samples.map((m) => m[name]).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
    if (xs.length > 0) values[name] = xs.reduce((a, b) => a + b, 0) / xs.length;
  }
  return { values, samples: samples.length };
}

/** The values a reference row's constraints were judged on (its mean), else its metrics. */
function referenceMetrics(data: KeepInput['baselineData']): Readonly<Record<string, number>> | undefined {
  const judged = (data?.constraints as ConstraintVerdict | undefined)?.values;
  return judged ? { ...data?.metrics, ...judged } : data?.metrics;
}

/**
 * A keep policy that checks constraints on named metrics before `inner` decides (issue 28):
 *
 * - The candidate's metrics are the mean, per metric, of its samples (`KeepInput.candidateMetrics`;
 *   with a noise-aware inner policy, of every repeat it ran); bounds relative to `baseline` use the
 *   baseline row's metrics, relative to `incumbent` the last kept row's (the means it was judged on).
 * - A broken `blocking` constraint reverts the candidate without asking `inner` (no re-runs are
 *   spent on it); when `inner` re-sampled a candidate that met them on its first run, they are
 *   checked again on the mean of all its samples and a blocking one broken then reverts it too.
 *   The row's note (and description) says which constraint and by how much.
 * - A broken `advisory` constraint never changes the decision; a kept row's note warns.
 * - A missing metric is a violation (`+Infinity`); pair the policy with {@link requireMetrics} so
 *   a run without a declared metric is a crash instead.
 *
 * Every decision records `data.constraints` ({@link ConstraintVerdict}). The policy's name is
 * `constrained(<inner>)`.
 *
 * @throws {LoopError} `CONFIG_INVALID` for an expression that does not parse.
 * @example
 * const keepPolicy = withConstraints(strictImprovement(), [
 *   'rss_mb <= baseline * 1.05',
 *   parseConstraint('latency_ms <= 200', 'advisory'),
 * ]);
 */
export function withConstraints(inner: KeepPolicy, constraints: readonly ConstraintInput[]): KeepPolicy {
  const parsed = toConstraints(constraints);
  const names = constraintMetrics(parsed);
  const judge = (input: KeepInput) => {
    const { values, samples } = meanMetrics(input, names);
    const baseline = referenceMetrics(input.baselineData);
    const checks = checkConstraints(parsed, values, baseline, referenceMetrics(input.incumbentData));
    const broken = checks.filter((c) => c.violation > 0);
    const feasibility = checks.map((c) => (Number.isFinite(c.violation) ? c.violation : null));
    const verdict: ConstraintVerdict = { values, samples, violations: broken.map(toViolation), feasibility };
    const of = (mode: Constraint['mode']) => broken.filter((c) => c.constraint.mode === mode);
    return { samples, verdict, blocking: of('blocking'), advisory: of('advisory') };
  };
  const blocked = (reason: string, j: ReturnType<typeof judge>): KeepDecision => {
    const note = `blocked by constraint ${j.blocking.map(describeViolation).join('; ')}`;
    return { keep: false, reason: `${note}${reason}`, note, data: { constraints: j.verdict } };
  };
  return {
    name: `constrained(${inner.name})`,
    decide: async (input) => {
      const first = judge(input);
      if (first.blocking.length > 0) return blocked('', first);
      const decision = await inner.decide(input);
      const last = judge(input); // again: the inner policy may have added samples
      const data = { ...decision.data, constraints: last.verdict };
      if (last.blocking.length > 0 && decision.keep) {
        const said = ` (on the mean of ${last.samples} samples; the keep policy said: ${decision.reason})`;
        return { ...blocked(said, last), ...(decision.evidence ? { evidence: decision.evidence } : {}) };
      }
      if (last.advisory.length === 0 || !decision.keep) return { ...decision, data };
      const warning = `advisory constraint ${last.advisory.map(describeViolation).join('; ')}`;
      return { ...decision, data, note: decision.note ? `${decision.note}; ${warning}` : warning };
    },
  };
}

function toViolation(c: ConstraintCheck): ConstraintViolationRecord {
  const finite = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? null : x);
  const { text: constraint, mode } = c.constraint;
  return { constraint, mode, value: finite(c.value), bound: finite(c.bound), violation: finite(c.violation) };
}

/**
 * A scorer that makes each named metric mandatory (issue 28: a missing metric on a run is a crash
 * for that candidate, not a pass): a successful score whose run record and score together lack one
 * of `names` (or hold a non-finite value) becomes a `metric-not-found` crash naming the metrics,
 * with the log's last 50 lines. On the baseline this fails the run before any candidate
 * (`BASELINE_FAILED`). `onMissing` hears the names each time (a config layer maps them to lines).
 *
 * @example
 * const regex = createRegexScorer({ pattern: '^ops_per_s:', direction: 'maximize', metrics: { rss_mb: '^rss_mb:' } });
 * const scorer = requireMetrics(regex, ['rss_mb']);
 */
export function requireMetrics(
  scorer: Scorer,
  names: readonly string[],
  onMissing?: (missing: readonly string[]) => void,
): Scorer {
  return {
    ...scorer,
    score: async (run): Promise<ScoreResult> => {
      const result = await scorer.score(run);
      if (!result.ok) return result;
      const metrics: Record<string, unknown> = { ...run.data?.metrics, ...result.data?.metrics };
      const missing = names.filter((n) => typeof metrics[n] !== 'number' || !Number.isFinite(metrics[n]));
      if (missing.length === 0) return result;
      onMissing?.(missing);
      const which = missing.length === 1 ? `metric ${missing[0]}` : `metrics ${missing.join(', ')}`;
      return {
        ok: false,
        reason: 'metric-not-found',
        message:
          `${which} missing from the run (a constraint needs ${missing.length === 1 ? 'it' : 'them'}; ` +
          'the run must print every metric a constraint names)',
        logTail: run.logPath ? await readLogTail(run.logPath, 50) : '',
        ...(result.data ? { data: result.data } : {}),
      };
    },
  };
}
