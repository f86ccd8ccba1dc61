/** Which matching line counts when several do: the first, or the last (the default). */
export type MetricMatch = 'first' | 'last';

/** What {@link extractFromText} found: the raw token and its number, or nothing. */
export type Extracted = { readonly token: string; readonly value: number } | undefined;

/**
 * The JavaScript source (a function expression) of {@link extractFromText}. Plain JS in a string
 * on purpose: it runs in a worker created with `eval: true`.
 */
export const EXTRACT_SOURCE =
  String.raw`function extractFromText(text, source, flags, match, maxLineLength) {
  const regex = new RegExp(source, flags.replace(/[gym]/g, ''));
  const decimal = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
  const numberInText = /(?<![\w.])([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|` +
  String.raw`[-+]?(?:nan|inf(?:inity)?))(?![\w]|\.\d)/i;
  const parse = (raw) => {
    const t = raw.trim().toLowerCase();
    if (t === 'nan' || t === '+nan' || t === '-nan') return Number.NaN;
    if (t === 'inf' || t === '+inf' || t === 'infinity' || t === '+infinity') return Number.POSITIVE_INFINITY;
    if (t === '-inf' || t === '-infinity') return Number.NEGATIVE_INFINITY;
    return decimal.test(t) ? Number.parseFloat(t) : Number.NaN;
  };
  let found;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    let line = text.slice(start, end > start && text[end - 1] === '\r' ? end - 1 : end);
    start = end + 1;
    if (line.length > maxLineLength) line = line.slice(0, maxLineLength);
    const m = regex.exec(line);
    if (m === null) continue;
    const token = m.length > 1 ? (m[1] ?? '') : (numberInText.exec(line.slice(m.index + m[0].length))?.[1] ?? '');
    found = { token, value: parse(token) };
    if (match === 'first') return found;
  }
  return found;
}`;

/**
 * Extracts a metric from a log text, one line at a time (like `grep`, seed 003 Step 4), so no
 * pattern can match across a line break: `val_bpb:` on one line and `42` on the next is no match.
 * Lines longer than `maxLineLength` characters are cut to that length before matching.
 *
 * With a capture group, group 1 is the token; without one, the first number after the match on
 * that line is. Numbers are decimal only (`12`, `-0.5`, `1e-3`, `.5`); `0x10`, `0b1`, `0o7` and
 * `1_000` are not numbers. `nan` and `inf`/`infinity` parse to non-finite values (a crash later).
 *
 * The function is compiled from {@link EXTRACT_SOURCE}, the same text the extraction worker runs
 * (`metric-worker.ts`), so the two cannot differ and no bundler or test transform can put
 * helpers into the worker's copy (as `fn.toString()` would: tsx adds `__name` calls).
 *
 * @param source - the pattern's source; `flags` its flags (`g`, `y` and `m` are dropped).
 * @returns the token and value, or `undefined` when no line matches.
 */
export const extractFromText = new Function(`return (${EXTRACT_SOURCE});`)() as (
  text: string,
  source: string,
  flags: string,
  match: MetricMatch,
  maxLineLength: number,
) => { token: string; value: number } | undefined;
