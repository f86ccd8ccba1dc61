import type { z } from 'zod';
import { ConfigError, parseOptions } from '../contracts/errors.js';

/**
 * Where each deprecated flat option name now lives, as `[group, field]`: for example
 * `{ keepPolicy: ['keep', 'policy'], maxRepairAttempts: ['recovery', 'maxRepairAttempts'] }`.
 */
export type FlatOptionMoves = Readonly<Record<string, readonly [group: string, field: string]>>;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Moves the deprecated flat names of `input` into their groups (`moves`) and returns a new object
 * in the grouped shape only, plus where each moved value came from (grouped path → flat name).
 * A value of `undefined` counts as not given. `input` is not changed.
 *
 * @throws {ConfigError} `CONFIG_INVALID` (component `where`) naming both fields when a flat name
 *   and its grouped place are given at once.
 */
export function groupFlatOptions(
  input: unknown,
  moves: FlatOptionMoves,
  where: string,
): { grouped: unknown; movedFrom: ReadonlyMap<string, string> } {
  if (!isPlainObject(input)) return { grouped: input, movedFrom: new Map() };
  const grouped: Record<string, unknown> = { ...input };
  const movedFrom = new Map<string, string>();
  const issues: { path: string; message: string }[] = [];
  for (const [flat, [group, field]] of Object.entries(moves)) {
    if (!(flat in grouped)) continue;
    const value = grouped[flat];
    delete grouped[flat];
    if (value === undefined) continue;
    const target = grouped[group];
    if (target !== undefined && !isPlainObject(target)) {
      // `group` itself is invalid: leave the flat value where it was so the schema names both.
      grouped[flat] = value;
      continue;
    }
    if (target?.[field] !== undefined) {
      issues.push({
        path: `${group}.${field}`,
        message:
          `${flat} and ${group}.${field} are both set: one field given twice, as ${group}.${field} ` +
          `and as ${flat} (deprecated); keep only ${group}.${field}`,
      });
      continue;
    }
    grouped[group] = { ...target, [field]: value };
    movedFrom.set(`${group}.${field}`, flat);
  }
  if (issues.length > 0) throw new ConfigError(where, issues);
  return { grouped, movedFrom };
}

/**
 * Parses options that have a grouped shape and, for one version, the old flat names: moves the flat
 * names into their groups ({@link groupFlatOptions}), then validates with `schema` (the grouped
 * shape). An invalid value given under a flat name is reported under that name.
 *
 * @returns the parsed options (`parsed`, with the schema's defaults), the grouped input (`grouped`,
 *   the caller's own values, not copied by the schema) and `pathOf`, which names a grouped path
 *   (`files.targetFiles.0`) the way the caller gave it (`targetFiles.0` when it came flat): for
 *   errors found after parsing.
 * @throws {ConfigError} `CONFIG_INVALID` naming every invalid field, or both names of a field given twice.
 */
export function parseGroupedOptions<S extends z.ZodType>(
  schema: S,
  input: unknown,
  moves: FlatOptionMoves,
  where: string,
): { parsed: z.output<S>; grouped: unknown; pathOf: (path: string) => string } {
  const { grouped, movedFrom } = groupFlatOptions(input, moves, where);
  const pathOf = (path: string): string => {
    const key = [...movedFrom.keys()].find((p) => path === p || path.startsWith(`${p}.`));
    return key ? movedFrom.get(key)! + path.slice(key.length) : path;
  };
  try {
    return { parsed: parseOptions(schema, grouped, where), grouped, pathOf };
  } catch (error) {
    if (!(error instanceof ConfigError) || movedFrom.size === 0) throw error;
    const issues = error.issues.map((issue) => ({ ...issue, path: pathOf(issue.path) }));
    throw new ConfigError(where, issues, error.cause);
  }
}
