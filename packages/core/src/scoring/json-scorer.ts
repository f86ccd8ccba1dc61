import { readFile, rm } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { parseOptions } from '../contracts/errors.js';
import { readLogTail } from '../harness/log-tail.js';
import { runFailure } from './regex-scorer.js';
import type { ScoreCrash, Scorer, ScoreResult } from '../contracts/scorer.js';
import type { Direction } from '../contracts/types.js';

/** Options of {@link createJsonScorer}. */
export interface JsonScorerOptions {
  /** Dotted path of the objective in the JSON object, e.g. `val.loss` or `results.0.score`. */
  path: string;
  /** Which way the objective improves. */
  direction: Direction;
  /**
   * Named metrics besides the objective: name → dotted path (issue 28). Found finite numbers go in
   * the score's `data.metrics`; a missing path is left out (see `requireMetrics`). @default none
   */
  metrics?: Record<string, string>;
  /**
   * Absolute path of a JSON file to read instead of the log; deleted after each read, so a run that
   * does not write it afresh is `metric-not-found`. @default the last line of the run log that is a JSON object
   */
  file?: string;
  /** Treat a non-zero exit code as a crash even when the JSON was printed. @default true */
  requireZeroExit?: boolean;
}

const dotted = z.string().min(1, 'a path must not be empty');

/** zod schema of {@link JsonScorerOptions}. */
export const jsonScorerOptionsSchema = z.object({
  path: dotted,
  direction: z.enum(['minimize', 'maximize']),
  metrics: z.record(z.string().min(1), dotted).optional(),
  file: z
    .string()
    .refine((p) => isAbsolute(p), 'file must be an absolute path')
    .optional(),
  requireZeroExit: z.boolean().default(true),
});

const DECIMAL = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

/** The value at a dotted path (`a.b.0`), or `undefined`. A number given as a decimal string counts. */
export function valueAtPath(root: unknown, path: string): number | undefined {
  let node: unknown = root;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  if (typeof node === 'number') return node;
  if (typeof node === 'string' && DECIMAL.test(node)) return Number(node);
  return undefined;
}

/** The last line of `text` that parses as a JSON object, or `undefined`. */
export function lastJsonLine(text: string): Record<string, unknown> | undefined {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{')) continue;
    try {
      const parsed: unknown = JSON.parse(line);
      const isObject = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
      if (isObject) return parsed as Record<string, unknown>;
    } catch {
      // not JSON: keep looking
    }
  }
  return undefined;
}

/**
 * A scorer that reads a JSON object (DESIGN: the JSON-path scorer): from `file`, or else the last
 * line of the run log that is a JSON object (`{"loss": 0.41, "rss_mb": 212}`), and takes the
 * objective at `path` and each named metric at its path (into `data.metrics`). A failed run (see
 * `runFailure`), no JSON, or no number at `path` is a `metric-not-found` crash; a non-finite
 * objective is `metric-not-finite`.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for an empty path, a relative file or a bad direction.
 * @example
 * const scorer = createJsonScorer({ path: 'val.loss', direction: 'minimize', metrics: { rss_mb: 'mem.rss_mb' } });
 */
export function createJsonScorer(options: JsonScorerOptions): Scorer {
  const o = parseOptions(jsonScorerOptionsSchema, options, 'json-scorer');
  type Reason = ScoreCrash['reason'];
  const crash = async (logPath: string | undefined, reason: Reason, message: string): Promise<ScoreCrash> => ({
    ok: false,
    reason,
    message,
    logTail: logPath ? await readLogTail(logPath, 50) : '',
  });
  return {
    name: `json(${o.path})`,
    direction: o.direction,
    score: async (run): Promise<ScoreResult> => {
      const failure = runFailure(run, o.requireZeroExit);
      const source = o.file ?? run.logPath;
      const text = failure || source === undefined ? undefined : await readFile(source, 'utf8').catch(() => undefined);
      if (o.file) await rm(o.file, { force: true });
      if (failure) return crash(run.logPath, failure.reason, failure.message);
      const where = o.file ? `the JSON file ${o.file}` : 'the log';
      if (text === undefined) return crash(run.logPath, 'metric-not-found', `${where} could not be read`);
      let json: Record<string, unknown> | undefined;
      if (o.file) {
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch (error) {
          return crash(run.logPath, 'metric-not-found', `${where} is not JSON: ${(error as Error).message}`);
        }
      } else json = lastJsonLine(text);
      if (json === undefined) return crash(run.logPath, 'metric-not-found', `no line of ${where} is a JSON object`);
      const value = valueAtPath(json, o.path);
      if (value === undefined) return crash(run.logPath, 'metric-not-found', `${where} has no number at ${o.path}`);
      if (!Number.isFinite(value)) {
        return crash(run.logPath, 'metric-not-finite', `the value at ${o.path} is not finite: ${value}`);
      }
      const metrics: Record<string, number> = {};
      for (const [name, path] of Object.entries(o.metrics ?? {})) {
        const m = valueAtPath(json, path);
        if (m !== undefined && Number.isFinite(m)) metrics[name] = m;
      }
      return { ok: true, value, ...(Object.keys(metrics).length > 0 ? { data: { metrics } } : {}) };
    },
  };
}
