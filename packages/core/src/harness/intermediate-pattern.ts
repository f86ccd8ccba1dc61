import { ConfigError } from '../contracts/errors.js';

/**
 * How a command harness finds intermediate reports in its log (issue 27): a regular expression
 * matched against each new log line as it is written, whose groups give the step and the value.
 */
export interface IntermediatePattern {
  /**
   * The pattern, e.g. `^step (\d+) .*val_bpc ([\d.]+|nan|inf)`. Named groups `step` and `value`
   * when present, else the first group is the step and the second the value. A value of `nan`,
   * `inf` or `-inf` (any case) is read as NaN / ±Infinity (for the non-finite pruner).
   */
  pattern: string;
  /** How often the log is read for new lines while the run goes on, in ms. @default 200 */
  pollMs?: number;
}

/** A compiled {@link IntermediatePattern}: a line to its report, or `undefined`. */
export type IntermediateMatcher = (line: string) => { step: number; value: number } | undefined;

/**
 * Why `pattern` cannot be an {@link IntermediatePattern} (it does not compile, or has fewer than
 * two groups and not the named groups `step` and `value`), or `undefined` when it can. Config
 * loaders call it to report the problem at the field's line.
 */
export function intermediatePatternProblem(pattern: string): string | undefined {
  let groups: number;
  try {
    new RegExp(pattern); // the error quotes the pattern as written
    groups = new RegExp(`${pattern}|`).exec('')!.length - 1;
  } catch (error) {
    return `not a valid regular expression: ${(error as Error).message}`;
  }
  const named = /\(\?<step>/.test(pattern) && /\(\?<value>/.test(pattern);
  if (named || groups >= 2) return undefined;
  return (
    `needs two groups (the step, then the value) or named groups ` +
    `(?<step>...) and (?<value>...); "${pattern}" has ${groups}`
  );
}

/**
 * Compiles an {@link IntermediatePattern}.
 *
 * @param where - the component for the error (`command-harness`); the field is `intermediate.pattern`.
 * @throws {ConfigError} `CONFIG_INVALID` when the pattern does not compile or has fewer than two groups.
 */
export function compileIntermediatePattern(pattern: string, where: string): IntermediateMatcher {
  const problem = intermediatePatternProblem(pattern);
  if (problem) throw new ConfigError(where, [{ path: 'intermediate.pattern', message: problem }]);
  const re = new RegExp(pattern);
  const named = /\(\?<step>/.test(pattern) && /\(\?<value>/.test(pattern);
  return (line) => {
    const m = re.exec(line);
    if (!m) return undefined;
    const stepText = named ? m.groups?.step : m[1];
    const valueText = named ? m.groups?.value : m[2];
    if (stepText === undefined || valueText === undefined) return undefined;
    const step = Number(stepText);
    const value = parseReportedValue(valueText);
    return Number.isFinite(step) && value !== undefined ? { step, value } : undefined;
  };
}

function parseReportedValue(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'nan') return Number.NaN;
  if (t === 'inf' || t === '+inf' || t === 'infinity') return Number.POSITIVE_INFINITY;
  if (t === '-inf' || t === '-infinity') return Number.NEGATIVE_INFINITY;
  const v = Number(t);
  return t !== '' && !Number.isNaN(v) ? v : undefined;
}
