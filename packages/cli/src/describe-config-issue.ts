import type { z } from 'zod';
import { allowedKeys, type JsonSchema } from './config-allowed-keys.js';
import { closestMatch } from './did-you-mean.js';

/** The start of an "allowed values" message: a missing field, or the value that is not allowed. */
const notAllowed = (value: unknown) =>
  value === undefined ? 'missing required field' : `${JSON.stringify(value)} is not allowed`;

/** An issue as people read it: the field it is about and what is wrong with it. */
export interface DescribedIssue {
  /** The field: the issue's own path, or deeper when a union's closest branch names a field under it. */
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * Rewrites a zod issue for people: missing fields, allowed values and keys (with the closest
 * allowed key); for a union, the field under it that its closest branch finds wrong.
 */
export function describeIssue(
  issue: z.core.$ZodIssue,
  data: unknown,
  jsonSchema: () => Record<string, unknown>,
): DescribedIssue {
  if (issue.code === 'invalid_union') {
    const deeper = closestBranchIssue(issue);
    if (deeper !== undefined) return describeIssue(deeper, data, jsonSchema);
  }
  return { path: issue.path, message: messageOf(issue, data, jsonSchema) };
}

/**
 * A union issue's closest branch (fewest issues, then fewest unknown keys) as an issue at its full
 * path, an unknown key first (a misspelled `mxa` is why `max` is missing); `undefined` when the
 * branches tie on an issue about the value itself, or the union lists allowed values.
 */
function closestBranchIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue | undefined {
  if ((issue as { options?: unknown[] }).options) return undefined;
  const unknown = (b: z.core.$ZodIssue[]) =>
    b.reduce((n, i) => n + (i.code === 'unrecognized_keys' ? i.keys.length : 0), 0);
  const branches = ((issue as { errors?: z.core.$ZodIssue[][] }).errors ?? []).filter((b) => b.length > 0);
  const fewest = Math.min(...branches.map((b) => b.length));
  const fewestUnknown = Math.min(...branches.filter((b) => b.length === fewest).map(unknown));
  const closest = branches.filter((b) => b.length === fewest && unknown(b) === fewestUnknown);
  const first = closest[0]?.find((i) => i.code === 'unrecognized_keys') ?? closest[0]?.[0];
  if (first === undefined || (closest.length > 1 && first.path.length === 0)) return undefined;
  return { ...first, path: [...issue.path, ...first.path] } as z.core.$ZodIssue;
}

function messageOf(issue: z.core.$ZodIssue, data: unknown, jsonSchema: () => Record<string, unknown>): string {
  const value = issue.path.reduce<unknown>(
    (v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k as PropertyKey],
    data,
  );
  switch (issue.code) {
    case 'invalid_type':
      // zod reports a fraction where an integer is asked as type "int": say it in words.
      if (issue.expected === 'int' && typeof value === 'number' && Number.isFinite(value))
        return `must be a whole number, found ${JSON.stringify(value)}`;
      return value === undefined
        ? `missing required field (expected ${issue.expected})`
        : `expected ${issue.expected}, found ${JSON.stringify(value)}`;
    case 'invalid_value':
      return `${notAllowed(value)}; allowed values: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      if (options) return `${notAllowed(value)}; allowed values: ${options.map((v) => JSON.stringify(v)).join(', ')}`;
      return issue.message;
    }
    case 'unrecognized_keys': {
      const allowed = allowedKeys(jsonSchema() as JsonSchema, issue.path, data);
      const named = issue.keys.map((k) => {
        const guess = closestMatch(k, allowed);
        return guess === undefined
          ? JSON.stringify(k)
          : `${JSON.stringify(k)} (did you mean ${JSON.stringify(guess)}?)`;
      });
      return (
        `unknown field${issue.keys.length > 1 ? 's' : ''} ${named.join(', ')}; ` +
        `allowed fields: ${allowed.join(', ')}`
      );
    }
    default:
      return issue.message;
  }
}
