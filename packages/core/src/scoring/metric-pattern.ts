/**
 * Load-time checks of a metric extraction pattern (issue 12, fault 3): it must compile, hold at
 * most one capture group, and not nest an unbounded quantifier inside another (star height > 1,
 * as in `^(a+)+$`), the shape that makes a backtracking engine take exponential time.
 *
 * Why a small scanner and not a library: `safe-regex` parses with `regexp-tree` only to measure
 * the same star height; the scanner below does that in one pass over the source with no
 * dependency. It is a first filter, not the guarantee: overlapping alternatives under one
 * quantifier (`^(a|a)+$`) have star height 1 and still backtrack exponentially. The guarantee is
 * that extraction runs in a worker thread under a time limit (see `metric-worker.ts`).
 */

/** The result of {@link checkMetricPattern}: the compiled pattern, or why it is refused. */
export type MetricPatternCheck =
  | { readonly ok: true; readonly regex: RegExp; readonly groups: number }
  | { readonly ok: false; readonly reason: string };

/** Capture groups of a compiled pattern (named groups count). */
export function captureGroups(regex: RegExp): number {
  return (new RegExp(`${regex.source}|`, regex.flags.replace(/[gy]/g, '')).exec('')?.length ?? 1) - 1;
}

interface Frame {
  /** The group contains an unbounded (or large bounded) quantifier. */
  quantified: boolean;
}

/** The quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`), its length and max count. */
function quantifierAt(source: string, i: number): { length: number; max: number } | undefined {
  const c = source[i];
  if (c === '*' || c === '+') return { length: source[i + 1] === '?' ? 2 : 1, max: Infinity };
  if (c === '?') return { length: source[i + 1] === '?' ? 2 : 1, max: 1 };
  if (c !== '{') return undefined;
  const m = /^\{(\d+)(,(\d*))?\}\??/.exec(source.slice(i));
  if (!m) return undefined;
  const max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
  return { length: m[0].length, max };
}

/** Counts above this make a bounded repeat of a quantified group as bad as an unbounded one. */
const LARGE_REPEAT = 9;

/**
 * The first nested quantifier in `source` (a quantified group that contains a quantified atom),
 * as the group's text, or `undefined` when the star height is at most 1.
 */
export function nestedQuantifier(source: string): string | undefined {
  const stack: { frame: Frame; start: number }[] = [{ frame: { quantified: false }, start: 0 }];
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    let atomEnd = i + 1;
    let inner: Frame | undefined;
    let start = i;
    if (c === '\\') {
      atomEnd = i + 2;
    } else if (c === '[') {
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      atomEnd = j + 1;
    } else if (c === '(') {
      stack.push({ frame: { quantified: false }, start: i });
      continue;
    } else if (c === ')') {
      if (stack.length === 1) continue; // unbalanced: the compiler reports it
      const top = stack.pop()!;
      inner = top.frame;
      start = top.start;
    } else if (c === '|' || c === '^' || c === '$') {
      continue;
    }
    const q = quantifierAt(source, atomEnd);
    const outer = stack[stack.length - 1]!.frame;
    if (inner?.quantified) outer.quantified = true;
    if (q === undefined) {
      i = atomEnd - 1;
      continue;
    }
    const repeats = q.max > LARGE_REPEAT;
    if (repeats && inner?.quantified) return source.slice(start, atomEnd + q.length);
    if (repeats) outer.quantified = true;
    i = atomEnd + q.length - 1;
  }
  return undefined;
}

/**
 * Compiles and checks a metric pattern the way a config load does.
 *
 * @param pattern - the pattern source (compiled without flags) or a RegExp.
 * @returns `{ ok: true, regex, groups }`, or `{ ok: false, reason }` with the regex engine's own
 *   message for a syntax error, the group count for more than one group, or the nested
 *   quantifier for a catastrophic pattern.
 */
export function checkMetricPattern(pattern: string | RegExp): MetricPatternCheck {
  let regex: RegExp;
  try {
    regex = typeof pattern === 'string' ? new RegExp(pattern) : pattern;
  } catch (error) {
    return { ok: false, reason: `pattern is not a valid regular expression: ${(error as Error).message}` };
  }
  const groups = captureGroups(regex);
  if (groups > 1) {
    return {
      ok: false,
      reason:
        `pattern has ${groups} capture groups; keep one (the value) or none (the ` +
        `first number after the match), and write the others as (?:...)`,
    };
  }
  const nested = nestedQuantifier(regex.source);
  if (nested !== undefined) {
    return {
      ok: false,
      reason:
        `pattern nests a repeat inside a repeat (${nested}), which can take ` +
        `exponential time on a non-matching line; write it without the outer ` +
        `repeat, e.g. (a+)+ as a+`,
    };
  }
  return { ok: true, regex, groups };
}
