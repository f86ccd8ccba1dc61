import { z } from 'zod';

/** A value a config parameter can hold. */
export type ParameterValue = string | number | boolean;

/**
 * One parameter of a {@link createTpeProposer} search space. The shapes of
 * {@link ParameterSpace} (a `values` list or a `min`/`max` range), plus:
 * - `{ fixed: v }`: the parameter is always written as `v` (never searched);
 * - `when: { other: [values...] }` on any shape: the parameter is active only while every named
 *   parameter holds one of the listed values (a conditional parameter, e.g. `momentum` only when
 *   `optimizer` is `sgd`). An inactive parameter is left as it is in the config and ignored by the model.
 *
 * A `values` list of numbers in ascending order is searched as an ordered (ordinal) parameter, any
 * other list as unordered categories.
 */
export type TpeParameter = (
  | { readonly values: ReadonlyArray<ParameterValue> }
  | { readonly min: number; readonly max: number; readonly scale?: 'linear' | 'log'; readonly integer?: boolean }
  | { readonly fixed: ParameterValue }
) & { readonly when?: Readonly<Record<string, ReadonlyArray<ParameterValue>>> };

const value = z.union([z.string(), z.number(), z.boolean()]);
const when = z.record(z.string(), z.array(value).min(1)).optional();

/** zod schema of one {@link TpeParameter}. */
export const tpeParameterSchema = z.union([
  z.object({ values: z.array(value).min(2, 'needs at least 2 values'), when }).strict(),
  z
    .object({
      min: z.number(),
      max: z.number(),
      scale: z.enum(['linear', 'log']).default('linear'),
      integer: z.boolean().default(false),
      when,
    })
    .strict()
    .refine((s) => s.max > s.min, { message: 'max must be greater than min', path: ['max'] })
    .refine((s) => s.scale !== 'log' || s.min > 0, { message: 'a log scale needs min > 0', path: ['min'] }),
  z.object({ fixed: value, when }).strict(),
]);

/** A parsed search space dimension: how a value maps to the model's coordinates. */
export type Dimension =
  | {
      readonly kind: 'numeric';
      readonly name: string;
      readonly lo: number;
      readonly hi: number;
      readonly log: boolean;
      readonly integer: boolean;
      readonly when?: Readonly<Record<string, ReadonlyArray<ParameterValue>>>;
    }
  | {
      readonly kind: 'ordinal';
      readonly name: string;
      readonly values: readonly number[];
      readonly when?: Readonly<Record<string, ReadonlyArray<ParameterValue>>>;
    }
  | {
      readonly kind: 'categorical';
      readonly name: string;
      readonly values: readonly ParameterValue[];
      readonly when?: Readonly<Record<string, ReadonlyArray<ParameterValue>>>;
    }
  | {
      readonly kind: 'fixed';
      readonly name: string;
      readonly value: ParameterValue;
      readonly when?: Readonly<Record<string, ReadonlyArray<ParameterValue>>>;
    };

/** A flat config: parameter name to value. */
export type ParameterConfig = Readonly<Record<string, unknown>>;

/** Turns a validated space into dimensions, sorted by name (the model's coordinate order). */
export function toDimensions(space: Readonly<Record<string, z.output<typeof tpeParameterSchema>>>): Dimension[] {
  return Object.keys(space)
    .sort()
    .map((name): Dimension => {
      const s = space[name]!;
      const extra = s.when ? { when: s.when } : {};
      if ('fixed' in s) return { kind: 'fixed', name, value: s.fixed, ...extra };
      if ('values' in s) {
        const nums =
          s.values.every((v) => typeof v === 'number') &&
          s.values.every((v, i) => i === 0 || (v as number) > (s.values[i - 1] as number));
        return nums
          ? { kind: 'ordinal', name, values: s.values as number[], ...extra }
          : { kind: 'categorical', name, values: s.values, ...extra };
      }
      return { kind: 'numeric', name, lo: s.min, hi: s.max, log: s.scale === 'log', integer: s.integer, ...extra };
    });
}

/** True when `dim`'s condition holds in `config` (always, without a `when`). */
export function isActive(dim: Dimension, config: ParameterConfig): boolean {
  if (!dim.when) return true;
  return Object.entries(dim.when).every(([other, allowed]) => allowed.some((v) => sameValue(v, config[other])));
}

/** Equality of config values as the description prints them (`64` and `"64"` differ; NaN never matches). */
export function sameValue(a: unknown, b: unknown): boolean {
  return a === b;
}

/** Rounds a float to 5 significant digits: what the proposer writes, so the description is exact. */
export function quantize(v: number): number {
  return Number(v.toPrecision(5));
}

const t = (d: Extract<Dimension, { kind: 'numeric' }>, v: number) => (d.log ? Math.log(v) : v);

/**
 * A value's model coordinate: in [0, 1] for numeric and ordinal dimensions, the category's index for
 * categoricals, `undefined` when the value is not in the space (then the row is ignored for this dimension).
 */
export function encode(dim: Dimension, v: unknown): number | undefined {
  if (dim.kind === 'fixed') return undefined;
  if (dim.kind === 'categorical') {
    const i = dim.values.findIndex((x) => sameValue(x, v));
    return i < 0 ? undefined : i;
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  if (dim.kind === 'ordinal') {
    const i = dim.values.indexOf(v);
    return i < 0 ? undefined : dim.values.length === 1 ? 0.5 : i / (dim.values.length - 1);
  }
  if (v < dim.lo || v > dim.hi) return undefined;
  const u = (t(dim, v) - t(dim, dim.lo)) / (t(dim, dim.hi) - t(dim, dim.lo));
  return Math.min(1, Math.max(0, u));
}

/** The config value for a model coordinate (clamped, rounded for integers, quantized for floats). */
export function decode(dim: Dimension, u: number): ParameterValue {
  if (dim.kind === 'fixed') return dim.value;
  if (dim.kind === 'categorical') return dim.values[Math.min(dim.values.length - 1, Math.max(0, Math.round(u)))]!;
  const c = Math.min(1, Math.max(0, u));
  if (dim.kind === 'ordinal') return dim.values[Math.round(c * (dim.values.length - 1))]!;
  const lo = t(dim, dim.lo);
  const raw = lo + c * (t(dim, dim.hi) - lo);
  const v = dim.log ? Math.exp(raw) : raw;
  if (dim.integer) return Math.min(dim.hi, Math.max(dim.lo, Math.round(v)));
  return Math.min(dim.hi, Math.max(dim.lo, quantize(v)));
}

/** The number of categories of a categorical dimension (0 for the others). */
export function categoryCount(dim: Dimension): number {
  return dim.kind === 'categorical' ? dim.values.length : 0;
}
