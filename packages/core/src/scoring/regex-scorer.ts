import { rm } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { parseOptions } from '../contracts/errors.js';
import type { RunRecord } from '../contracts/harness.js';
import { describeExit, signalOfExitCode } from '../harness/exit-status.js';
import { readLogTail } from '../harness/log-tail.js';
import { extractFromText, type MetricMatch } from './metric-extract.js';
import { checkMetricPattern } from './metric-pattern.js';
import { extractInWorker } from './metric-worker.js';
import type { ScoreCrash, Scorer, ScoreResult } from '../contracts/scorer.js';
import type { Direction } from '../contracts/types.js';

export type { MetricMatch } from './metric-extract.js';

/** Options of {@link createRegexScorer}. */
export interface RegexScorerOptions {
  /**
   * The extraction pattern, matched one line at a time (like grep; nothing matches across a line
   * break). With a capture group, group 1 is the value; without one, the first decimal number
   * after the match on that line is (so seed 003's `^val_bpb:` works as given). A string is
   * compiled without flags. Refused with `CONFIG_INVALID` when it does not compile (the regex
   * engine's reason), has more than one capture group, or nests a repeat inside a repeat
   * (`^(a+)+$`, exponential backtracking).
   */
  pattern: string | RegExp;
  /** Which way the metric improves. */
  direction: Direction;
  /** Treat a non-zero exit code as a crash even when the metric was printed. @default true */
  requireZeroExit?: boolean;
  /** How many log lines a crash carries. @default 50 (seed 003: `tail -50 run.log`) */
  tailLines?: number;
  /**
   * Which matching line counts when several match. `'last'` (the default) suits a log that prints
   * progress lines and then the final one (seed 003 greps the log and the final line is the
   * metric); `'first'` stops a candidate that prints its own metric line after the evaluator's
   * (an exit trap) from winning, when the evaluator prints first. @default 'last'
   */
  match?: MetricMatch;
  /**
   * Absolute path of a metric file to read instead of the run log: the channel the candidate
   * cannot write when the read-only evaluator writes it after the candidate has ended (see
   * docs/write-your-own-harness.md). It is deleted after each read, so a run that does not write
   * it afresh is `metric-not-found`, never scored with the previous value. @default the run log
   */
  metricFile?: string;
  /** Lines are cut to this many characters before matching. @default 4096 */
  maxLineLength?: number;
  /**
   * Extraction runs in a worker thread terminated after this many ms (a crash row
   * `harness-error`), so no pattern can hang the loop or block Ctrl-C. @default 2000
   */
  extractTimeoutMs?: number;
  /**
   * Named metrics besides the objective (issue 28): one pattern per name, read from the same log
   * (or metric file) with the same rules as `pattern` (a capture group, else the first number after
   * the match; `match` picks the line). Found values go in the score's `data.metrics`; a metric no
   * line matches, or whose token is not a finite number, is left out (wrap the scorer with
   * `requireMetrics` to make one mandatory). @default none
   */
  metrics?: Record<string, string | RegExp>;
}

const patternField = z
  .union([z.string().min(1, 'pattern must not be empty'), z.instanceof(RegExp)])
  .superRefine((p, ctx) => {
    const check = checkMetricPattern(p);
    if (!check.ok) ctx.addIssue({ code: 'custom', message: check.reason });
  });

/** zod schema of {@link RegexScorerOptions}. */
export const regexScorerOptionsSchema = z.object({
  pattern: patternField,
  direction: z.enum(['minimize', 'maximize']),
  requireZeroExit: z.boolean().default(true),
  tailLines: z.number().int().positive().default(50),
  match: z.enum(['first', 'last']).default('last'),
  metricFile: z
    .string()
    .refine((p) => isAbsolute(p), 'metricFile must be an absolute path')
    .optional(),
  maxLineLength: z.number().int().positive().default(4096),
  extractTimeoutMs: z.number().int().positive().default(2000),
  metrics: z.record(z.string().min(1, 'a metric name must not be empty'), patternField).optional(),
});

/** The zod refinement of a pattern field: a config loader reuses it to report `file:line`. */
export const metricPatternSchema = patternField;

/**
 * Extracts the metric from a log text on the calling thread, one line at a time (see
 * {@link extractFromText}); the LAST matching line counts unless `match` is `'first'`. For a
 * pattern that is not known to be safe, prefer the scorer, which runs extraction in a worker
 * under a time limit.
 *
 * @returns the raw token and its number, or `undefined` when nothing matches.
 */
export function extractMetric(
  text: string,
  pattern: RegExp,
  options: { match?: MetricMatch; maxLineLength?: number } = {},
): { token: string; value: number } | undefined {
  return extractFromText(text, pattern.source, pattern.flags, options.match ?? 'last', options.maxLineLength ?? 4096);
}

/**
 * A scorer that greps the run's log (or a metric file) for the metric (seed 003 Step 4:
 * `grep "<pattern>" run.log`). If several lines match, the last one counts (or the first, with
 * `match: 'first'`). A timeout, a kill, a non-zero exit (by default), no match, a token that is
 * not a decimal number, NaN or infinity is a crash carrying the log's last 50 lines; so is an
 * extraction that exceeds `extractTimeoutMs` (the worker is terminated).
 *
 * @throws {ConfigError} `CONFIG_INVALID` for an empty, invalid, multi-group or catastrophic
 *   pattern, a relative metricFile, or a bad direction.
 *
 * @example
 * const scorer = createRegexScorer({ pattern: '^val_bpb:\\s*(\\S+)', direction: 'minimize' });
 */
export function createRegexScorer(options: RegexScorerOptions): Scorer {
  const o = parseOptions(regexScorerOptionsSchema, options, 'regex-scorer');
  const pattern = typeof o.pattern === 'string' ? new RegExp(o.pattern) : o.pattern;
  const metrics = Object.entries(o.metrics ?? {}).map(
    ([name, p]) => [name, typeof p === 'string' ? new RegExp(p) : p] as const,
  );
  const crash = async (run: RunRecord, reason: ScoreCrash['reason'], message: string): Promise<ScoreCrash> => ({
    ok: false,
    reason,
    message,
    logTail: run.logPath ? await readLogTail(run.logPath, o.tailLines) : '',
  });
  return {
    name: `regex(${pattern.source})`,
    direction: o.direction,
    score: async (run): Promise<ScoreResult> => {
      const early = runFailure(run, o.requireZeroExit);
      if (early) {
        if (o.metricFile) await rm(o.metricFile, { force: true });
        return crash(run, early.reason, early.message);
      }
      const path = o.metricFile ?? run.logPath;
      if (path === undefined) return crash(run, 'metric-not-found', 'the run has no log to read the metric from');
      const source = o.metricFile ? `metric file ${o.metricFile}` : 'the log';
      const extract = (p: RegExp) =>
        extractInWorker({
          path,
          pattern: p,
          match: o.match,
          maxLineLength: o.maxLineLength,
          timeoutMs: o.extractTimeoutMs,
        });
      const result = await extract(pattern);
      const named =
        result.kind === 'done' && result.found && Number.isFinite(result.found.value)
          ? await extractNamed(metrics, extract)
          : undefined;
      if (o.metricFile) await rm(o.metricFile, { force: true });
      if (named && 'timedOut' in named) {
        return crash(
          run,
          'harness-error',
          `metric extraction with /${named.timedOut}/ took ` +
            `over ${o.extractTimeoutMs} ms and was stopped (a pattern that ` +
            `backtracks?)`,
        );
      }
      if (result.kind === 'timeout') {
        return crash(
          run,
          'harness-error',
          `metric extraction with /${pattern.source}/ took ` +
            `over ${result.timeoutMs} ms and was stopped (a pattern that ` +
            `backtracks?)`,
        );
      }
      if (result.kind === 'failed') {
        const message = o.metricFile
          ? `the evaluator wrote no readable ${source} (${result.message})`
          : `no line matches /${pattern.source}/ (no readable log: ${result.message})`;
        return crash(run, 'metric-not-found', message);
      }
      const found = result.found;
      if (!found) return crash(run, 'metric-not-found', `no line of ${source} matches /${pattern.source}/`);
      if (found.token === '')
        return crash(run, 'metric-not-found', `the line matching /${pattern.source}/ holds no number`);
      if (!Number.isFinite(found.value)) {
        return crash(run, 'metric-not-finite', `metric is not a finite decimal number: "${found.token}"`);
      }
      return {
        ok: true,
        value: found.value,
        ...(named && Object.keys(named.values).length > 0 ? { data: { metrics: named.values } } : {}),
      };
    },
  };
}

/** Extracts each named metric; the finite ones found, or the first pattern that timed out. */
async function extractNamed(
  metrics: readonly (readonly [string, RegExp])[],
  extract: (p: RegExp) => ReturnType<typeof extractInWorker>,
): Promise<{ values: Record<string, number> } | { timedOut: string }> {
  const values: Record<string, number> = {};
  for (const [name, p] of metrics) {
    const r = await extract(p);
    if (r.kind === 'timeout') return { timedOut: p.source };
    if (r.kind === 'done' && r.found && r.found.token !== '' && Number.isFinite(r.found.value))
      values[name] = r.found.value;
  }
  return { values };
}

/**
 * The crash a run record itself shows (timeout, abort, kill, non-zero exit, harness error), or
 * `undefined` when the run completed normally.
 */
export function runFailure(
  run: RunRecord,
  requireZeroExit = true,
): { reason: ScoreCrash['reason']; message: string } | undefined {
  const seconds = (run.durationMs / 1000).toFixed(1);
  if (run.timedOut) return { reason: 'timeout', message: `timed out after ${seconds} s and was killed` };
  if (run.error === 'aborted') return { reason: 'aborted', message: 'run aborted' };
  if (run.error) return { reason: 'harness-error', message: run.error };
  if (run.signal) return { reason: 'killed', message: `killed by ${run.signal}` };
  if (requireZeroExit && run.exitCode !== 0)
    return {
      reason: signalOfExitCode(run.exitCode) ? 'killed' : 'exit-code',
      message: describeExit(run.exitCode, null),
    };
  return undefined;
}

/**
 * A scorer for harnesses that return the score themselves ({@link RunRecord.value}), such as a
 * function harness. A missing or non-finite value, or a failed run, is a crash.
 */
export function createValueScorer(direction: Direction): Scorer {
  return {
    name: 'value',
    direction,
    score: (run): ScoreResult => {
      const failure = runFailure(run);
      if (failure) return { ok: false, ...failure, logTail: '' };
      if (run.value === undefined)
        return { ok: false, reason: 'metric-not-found', message: 'the harness returned no value', logTail: '' };
      if (!Number.isFinite(run.value))
        return { ok: false, reason: 'metric-not-finite', message: `value is not finite: ${run.value}`, logTail: '' };
      return { ok: true, value: run.value, ...(run.dimensions ? { dimensions: run.dimensions } : {}) };
    },
  };
}
