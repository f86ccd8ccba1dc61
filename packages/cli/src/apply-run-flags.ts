import type { z } from 'zod';
import { ConfigFileError, type ConfigKind } from './load-config.js';
import { flagOverrides, LIST_FIELDS } from './run-flags.js';

/** Deep-merges plain objects (`over` wins; arrays and scalars are replaced). */
function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b)
        ? merge(b as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

/**
 * A validated config with the command line's overrides applied and validated again by the same
 * schema (so `--keep min-delta` without `--min-delta` or a config `minDelta` is refused like the
 * file would be). Issues name the flag: `<file>: --max-iterations (maxIterations): ...`.
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` when the merged config is invalid.
 * @throws {UsageError} for a flag whose value is not a number.
 */
export function applyRunFlags<S extends z.ZodType>(
  kind: ConfigKind<S>,
  config: z.output<S>,
  opts: Record<string, unknown>,
  file: string,
): z.output<S> {
  const { values, fields } = flagOverrides(opts);
  if (fields.size === 0) return config;
  // A list flag (--constraint) adds to the file's list.
  for (const field of LIST_FIELDS) {
    const more = values[field];
    const base = (config as Record<string, unknown>)[field];
    if (Array.isArray(more) && Array.isArray(base)) values[field] = [...base, ...more];
  }
  const result = kind.schema.safeParse(merge(config as Record<string, unknown>, values));
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => {
    const path = i.path.map(String).join('.');
    // The flag of the field, else one that set a field of the same block (--keep for keep.minDelta).
    const flag =
      fields.get(path) ??
      listFlag(path, config as Record<string, unknown>, fields) ??
      [...fields.entries()].find(([field]) => field.split('.')[0] === path.split('.')[0])?.[1];
    const message =
      i.code === 'unrecognized_keys'
        ? `${i.keys.map((k) => fields.get(k) ?? k).join(', ')} does not apply to this config's preset`
        : i.message;
    return { path: flag ? `${flag} (${path || 'config'})` : path, message };
  });
  throw new ConfigFileError(file, issues, result.error);
}

/**
 * `--constraint` for `constraints.3` when entry 3 came from a flag (the file's list has fewer entries); `undefined` for
 * the file's own entries.
 */
function listFlag(path: string, config: Record<string, unknown>, fields: Map<string, string>): string | undefined {
  const [field, index] = path.split('.');
  if (field === undefined || !LIST_FIELDS.has(field) || index === undefined) return undefined;
  const inFile = Array.isArray(config[field]) ? (config[field] as unknown[]).length : 0;
  return Number(index) >= inFile ? fields.get(field) : undefined;
}
