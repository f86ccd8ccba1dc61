import type { AutoIterateOptions } from '../src/index.js';

const GROUPS = ['files', 'run', 'score', 'keep', 'stop', 'recovery'] as const;
type Group = (typeof GROUPS)[number];

/** A test's changes to its base options: any top-level option, any fields of a group. */
export type OptionsOver = Omit<Partial<AutoIterateOptions>, Group> & {
  [G in Group]?: Partial<Exclude<AutoIterateOptions[G], undefined>>;
};

/** `base` with `over` on top, each option group merged field by field (a test's few changes to a base). */
export function withOptions(base: AutoIterateOptions, over: OptionsOver): AutoIterateOptions {
  const merged: Record<string, unknown> = { ...base, ...over };
  for (const g of GROUPS) if (base[g] && over[g]) merged[g] = { ...base[g], ...over[g] };
  return merged as unknown as AutoIterateOptions;
}
