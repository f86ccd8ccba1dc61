import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { parseOptions } from './errors.js';
import type { RunRecord } from './harness.js';
import { readLogTail } from './log-tail.js';
import type { ScoreCrash, Scorer, ScoreResult } from './scorer.js';
import type { Direction } from './types.js';

/** Options of {@link createRegexScorer}. */
export interface RegexScorerOptions {
  /**
   * The extraction pattern, matched per line (multiline). With a capture group, group 1 is the
   * value; without one, the first number after the match on that line is (so seed 003's
   * `^val_bpb:` works as given). A string is compiled with the `m` flag.
   */
  pattern: string | RegExp;
  /** Which way the metric improves. */
  direction: Direction;
  /** Treat a non-zero exit code as a crash even when the metric was printed. @default true */
  requireZeroExit?: boolean;
  /** How many log lines a crash carries. @default 50 (seed 003: `tail -50 run.log`) */
  tailLines?: number;
}

/** zod schema of {@link RegexScorerOptions}. */
export const regexScorerOptionsSchema = z.object({
  pattern: z.union([
    z.string().min(1, 'pattern must not be empty').refine((p) => {
      try {
        new RegExp(p, 'm');
        return true;
      } catch {
        return false;
      }
    }, 'pattern is not a valid regular expression'),
    z.instanceof(RegExp),
  ]),
  direction: z.enum(['minimize', 'maximize']),
  requireZeroExit: z.boolean().default(true),
  tailLines: z.number().int().positive().default(50),
});

const NUMBER = /[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf(?:inity)?)/i;

/** Parses a metric token; `nan`, `inf`, `Infinity` parse to non-finite numbers. */
function parseMetric(token: string): number {
  const t = token.trim().toLowerCase();
  if (t === 'nan' || t === '+nan' || t === '-nan') return Number.NaN;
  if (/^[+]?inf(inity)?$/.test(t)) return Number.POSITIVE_INFINITY;
  if (/^-inf(inity)?$/.test(t)) return Number.NEGATIVE_INFINITY;
  return t === '' ? Number.NaN : Number(t);
}

/**
 * Extracts the metric from a log text: the LAST line matching `pattern` counts.
 *
 * @returns the raw token and its number, or `undefined` when nothing matches.
 */
export function extractMetric(text: string, pattern: RegExp): { token: string; value: number } | undefined {
  const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
  const global = new RegExp(pattern.source, flags.includes('m') ? flags : `${flags}m`);
  let last: RegExpExecArray | undefined;
  for (const match of text.matchAll(global)) last = match as RegExpExecArray;
  if (!last) return undefined;
  let token: string;
  if (last[1] !== undefined) token = last[1];
  else {
    const lineEnd = text.indexOf('\n', last.index + last[0].length);
    const rest = text.slice(last.index + last[0].length, lineEnd === -1 ? undefined : lineEnd);
    token = NUMBER.exec(rest)?.[0] ?? '';
  }
  return { token, value: parseMetric(token) };
}

/**
 * A scorer that greps the run's log for the metric (seed 003 Step 4: `grep "<pattern>" run.log`).
 * If several lines match, the last one counts. A timeout, a kill, a non-zero exit (by default),
 * no match, NaN or infinity is a crash carrying the log's last 50 lines.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for an empty or invalid pattern or a bad direction.
 *
 * @example
 * const scorer = createRegexScorer({ pattern: '^val_bpb:\\s*(\\S+)', direction: 'minimize' });
 */
export function createRegexScorer(options: RegexScorerOptions): Scorer {
  const o = parseOptions(regexScorerOptionsSchema, options, 'regex-scorer');
  const pattern = typeof o.pattern === 'string' ? new RegExp(o.pattern, 'm') : o.pattern;
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
      if (early) return crash(run, early.reason, early.message);
      const text = run.logPath ? await readFile(run.logPath, 'utf8').catch(() => '') : '';
      const found = extractMetric(text, pattern);
      if (!found) return crash(run, 'metric-not-found', `no line matches /${pattern.source}/`);
      if (!Number.isFinite(found.value)) {
        return crash(run, 'metric-not-finite', `metric is not a finite number: "${found.token}"`);
      }
      return { ok: true, value: found.value };
    },
  };
}

/**
 * The crash a run record itself shows (timeout, abort, kill, non-zero exit, harness error), or
 * `undefined` when the run completed normally.
 */
export function runFailure(run: RunRecord, requireZeroExit = true): { reason: ScoreCrash['reason']; message: string } | undefined {
  const seconds = (run.durationMs / 1000).toFixed(1);
  if (run.timedOut) return { reason: 'timeout', message: `timed out after ${seconds} s and was killed` };
  if (run.error === 'aborted') return { reason: 'aborted', message: 'run aborted' };
  if (run.error) return { reason: 'harness-error', message: run.error };
  if (run.signal) return { reason: 'killed', message: `killed by ${run.signal}` };
  if (requireZeroExit && run.exitCode !== 0) return { reason: 'exit-code', message: `exited with code ${run.exitCode}` };
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
      if (run.value === undefined) return { ok: false, reason: 'metric-not-found', message: 'the harness returned no value', logTail: '' };
      if (!Number.isFinite(run.value)) return { ok: false, reason: 'metric-not-finite', message: `value is not finite: ${run.value}`, logTail: '' };
      return { ok: true, value: run.value, ...(run.dimensions ? { dimensions: run.dimensions } : {}) };
    },
  };
}
