import type { ParameterConfig } from './space.js';

/** One changed parameter of a proposal. */
export interface ParameterChange {
  /** The parameter's name (a key of the space). */
  readonly key: string;
  /** Its value before the proposal (`undefined` when the config did not have it). */
  readonly from: unknown;
  /** Its value after. */
  readonly to: unknown;
}

const PLAIN = /^[A-Za-z_][\w.\-/]*$/;

/**
 * A value as a description prints it: numbers as JavaScript prints them (exact: they round-trip),
 * booleans as `true`/`false`, a missing value as `unset`, simple strings bare (`adam`) and other
 * strings as JSON (`"two words"`, `"64"`, `"true"`).
 */
export function formatValue(v: unknown): string {
  if (v === undefined) return 'unset';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string' && PLAIN.test(v) && !['true', 'false', 'unset', 'null', 'Infinity', 'NaN'].includes(v))
    return v;
  return JSON.stringify(v) ?? 'unset';
}

/**
 * The description of a proposal: every changed parameter, `key from -> to`, comma-separated, in
 * the space's order, e.g. `lr 0.0003 -> 0.0006, optimizer sgd -> adam`. It is the durable record of
 * the proposal: {@link parseChanges} reads it back on resume.
 */
export function describeChanges(changes: readonly ParameterChange[]): string {
  return changes.map((c) => `${c.key} ${formatValue(c.from)} -> ${formatValue(c.to)}`).join(', ');
}

function readValue(text: string, at: number): { value: unknown; end: number } | undefined {
  if (text[at] === '"') {
    for (let end = at + 1; end < text.length; end++) {
      if (text[end] === '\\') end++;
      else if (text[end] === '"') {
        try {
          return { value: JSON.parse(text.slice(at, end + 1)), end: end + 1 };
        } catch {
          return undefined;
        }
      }
    }
    return undefined;
  }
  let end = at;
  while (end < text.length && text[end] !== ' ' && text[end] !== ',') end++;
  const token = text.slice(at, end);
  if (token === '') return undefined;
  if (token === 'unset') return { value: undefined, end };
  if (token === 'true' || token === 'false') return { value: token === 'true', end };
  const n = Number(token);
  return { value: /^[-+0-9.]/.test(token) && Number.isFinite(n) ? n : token, end };
}

/**
 * Reads the changes back from a row's description (the engine may have appended ` (crash: ...)`
 * or another note: text after the last change is ignored). Every key must be in `keys`.
 *
 * @returns the changes, or `undefined` when the description is not one of ours (then the row is
 *   not used by the model).
 */
export function parseChanges(description: string, keys: ReadonlySet<string>): ParameterChange[] | undefined {
  const out: ParameterChange[] = [];
  let at = 0;
  for (;;) {
    const space = description.indexOf(' ', at);
    if (space < 0) return undefined;
    const key = description.slice(at, space);
    if (!keys.has(key)) return undefined;
    const from = readValue(description, space + 1);
    if (!from || description.slice(from.end, from.end + 4) !== ' -> ') return undefined;
    const to = readValue(description, from.end + 4);
    if (!to) return undefined;
    out.push({ key, from: from.value, to: to.value });
    if (description.slice(to.end, to.end + 2) !== ', ' || !keys.has(description.slice(to.end + 2).split(' ')[0]!))
      return out;
    at = to.end + 2;
  }
}

/** `config` with `changes` applied (their `to` values). */
export function applyChanges(
  config: ParameterConfig,
  changes: readonly ParameterChange[],
  direction: 'to' | 'from' = 'to',
): Record<string, unknown> {
  const next: Record<string, unknown> = { ...config };
  for (const c of changes) {
    const v = direction === 'to' ? c.to : c.from;
    if (v === undefined) delete next[c.key];
    else next[c.key] = v;
  }
  return next;
}
