import { basename, dirname, isAbsolute } from 'node:path';
import { z } from 'zod';
import { parseOptions } from '../contracts/errors.js';
import type { IterationRecord } from '../contracts/iteration-record.js';
import { totalViolation, type ConstraintsFunction } from '../policies/pareto-math.js';
import type { Proposer } from '../contracts/proposer.js';
import { createConfigFileAdapter, type ConfigAdapter } from './tpe/config-adapter.js';
import type { RandomSource } from '../contracts/types.js';

/** One hyperparameter's search space: a list of values, or a numeric range. */
export type ParameterSpace =
  | { values: ReadonlyArray<string | number | boolean> }
  | { min: number; max: number; scale?: 'linear' | 'log'; integer?: boolean };

/** Options of {@link createHyperparameterMutator}. */
export interface HyperparameterMutatorOptions {
  /** Absolute path of the JSON config file the proposer edits (a flat object). Give this or `config`. */
  file?: string;
  /**
   * Where the config is read and written instead of `file`: `createConfigFileAdapter` (JSON or
   * YAML, follows a parallel batch's working copy) or `createMemoryConfigAdapter` (an in-memory artifact).
   */
  config?: ConfigAdapter;
  /** The parameters it may change and their spaces; other keys are never touched. */
  space: Record<string, ParameterSpace>;
  /** The random source (seed it for reproducible runs). */
  random: RandomSource;
  /** Attempts to find a config not tried before in this run. @default 20 */
  maxTries?: number;
  /**
   * Constraints, Optuna-style (one value per constraint, `<= 0` feasible; read `record.data.metrics`).
   * A numeric move since the last kept row that made the candidate infeasible (`lr 0.01 -> 0.1`)
   * also bars every value at or beyond its target in that direction (`lr >= 0.1`) until the next
   * keep: the mutator sees the violation and stops walking into the infeasible side. @default none
   */
  constraints?: ConstraintsFunction;
}

const spaceSchema = z.union([
  z
    .object({ values: z.array(z.union([z.string(), z.number(), z.boolean()])).min(2, 'needs at least 2 values') })
    .strict(),
  z
    .object({
      min: z.number(),
      max: z.number(),
      scale: z.enum(['linear', 'log']).default('linear'),
      integer: z.boolean().default(false),
    })
    .strict()
    .refine((s) => s.max > s.min, { message: 'max must be greater than min', path: ['max'] })
    .refine((s) => s.scale !== 'log' || s.min > 0, { message: 'a log scale needs min > 0', path: ['min'] }),
]);

/** zod schema of {@link HyperparameterMutatorOptions}. */
export const hyperparameterMutatorOptionsSchema = z
  .object({
    file: z
      .string()
      .refine((p) => isAbsolute(p), 'file must be an absolute path')
      .optional(),
    config: z
      .custom<ConfigAdapter>(
        (c) => typeof (c as ConfigAdapter)?.read === 'function',
        'config must be a ConfigAdapter (read, write)',
      )
      .optional(),
    space: z
      .record(z.string(), spaceSchema)
      .refine((s) => Object.keys(s).length > 0, 'space must name at least one parameter'),
    random: z.custom<RandomSource>((r) => typeof (r as RandomSource)?.next === 'function', 'random must have next()'),
    maxTries: z.number().int().positive().default(20),
    constraints: z
      .custom<ConstraintsFunction>((f) => f === undefined || typeof f === 'function', 'constraints must be a function')
      .optional(),
  })
  .refine((o) => (o.file === undefined) !== (o.config === undefined), {
    message: 'give exactly one of file and config',
    path: ['file'],
  });

type Space = z.output<typeof spaceSchema>;

function formatValue(v: unknown): string {
  return typeof v === 'number' ? String(Number(v.toPrecision(5))) : JSON.stringify(v);
}

/**
 * Picks a new value for one parameter. `bold` (hints from the loop) doubles the reach and lets a
 * list jump to any value; `step` (0 < step <= 1) scales numeric moves down as the run stops finding
 * gains (step adaptation, see {@link stepScale}).
 */
function mutateValue(current: unknown, space: Space, random: RandomSource, bold: boolean, step: number): unknown {
  if ('values' in space) {
    const others = space.values.filter((v) => v !== current);
    const index = space.values.indexOf(current as never);
    // Prefer a neighbour (one focused step); with a hint, or one time in four, any other value.
    if (!bold && index >= 0 && random.next() < 0.75) {
      const neighbours = [space.values[index - 1], space.values[index + 1]].filter((v) => v !== undefined);
      return neighbours[Math.floor(random.next() * neighbours.length)];
    }
    return others[Math.floor(random.next() * others.length)];
  }
  const { min, max, scale, integer } = space;
  const cur = typeof current === 'number' && Number.isFinite(current) ? current : (min + max) / 2;
  const reach = (bold ? 1.0 : 0.5) * step;
  const sign = random.next() < 0.5 ? -1 : 1;
  const magnitude = 0.15 * step + random.next() * reach;
  let next = scale === 'log' ? cur * Math.exp(sign * magnitude * 2) : cur + sign * magnitude * 0.5 * (max - min);
  next = Math.min(max, Math.max(min, next));
  if (integer) {
    next = Math.round(next);
    if (next === cur) next = Math.min(max, Math.max(min, cur + sign));
  } else next = Number(next.toPrecision(5));
  return next;
}

/**
 * Step adaptation from the history (so a resume adapts the same): the step starts at 1 and is
 * multiplied by 0.85 for every proposal since the last kept one, down to 0.05; a kept change
 * resets it to 1 (a success rule in the spirit of the (1+1)-ES 1/5 rule: no gains, smaller moves).
 */
export function stepScale(history: readonly IterationRecord[]): number {
  let since = 0;
  for (let i = history.length - 1; i >= 0 && history[i]!.status !== 'kept' && history[i]!.status !== 'baseline'; i--)
    since++;
  return Math.max(0.05, 0.85 ** since);
}

/**
 * The moves (`key old -> new`) not to retry now: those tried and not kept SINCE THE LAST KEPT ROW
 * (a context-aware blacklist: once the incumbent changes, the same move is a different experiment
 * and may be tried again; a move is never banned for the rest of the run).
 */
export function failedMoves(history: readonly IterationRecord[]): Set<string> {
  const out = new Set<string>();
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]!;
    if (r.status === 'kept' || r.status === 'baseline') break;
    out.add(r.description.split(' (')[0]!);
  }
  return out;
}

/** Values at or above `above` and at or below `below` are barred. */
type Limit = { above?: number; below?: number };

/**
 * The numeric limits learnt from infeasible candidates since the last kept row: for each move
 * `key from -> to` whose row violated a constraint, values at or beyond `to` (in the move's
 * direction) are barred. A keep clears them (the incumbent moved; the limit may no longer hold).
 */
export function infeasibleLimits(
  history: readonly IterationRecord[],
  constraints: ConstraintsFunction,
): Map<string, Limit> {
  const out = new Map<string, Limit>();
  for (let i = history.length - 1; i >= 0; i--) {
    const r = history[i]!;
    if (r.status === 'kept' || r.status === 'baseline') break;
    if (r.score === null || totalViolation(constraints(r)) <= 0) continue;
    const m = /^(\S+) (\S+) -> (\S+)$/.exec(r.description.split(' (')[0]!);
    const from = Number(m?.[2]);
    const to = Number(m?.[3]);
    if (!m || !Number.isFinite(from) || !Number.isFinite(to) || from === to) continue;
    const limit = { ...out.get(m[1]!) };
    if (to > from) limit.above = Math.min(limit.above ?? Infinity, to);
    else limit.below = Math.max(limit.below ?? -Infinity, to);
    out.set(m[1]!, limit);
  }
  return out;
}

/**
 * A proposer that changes ONE hyperparameter of a flat config per iteration (seed 003:
 * "一次一变量", one variable at a time), chosen with a seeded random source: the simple option
 * next to `createTpeProposer`. Lists step to a neighbour (or, one time in four, any value);
 * ranges move by a random factor (log scale) or fraction of the range, scaled by
 * {@link stepScale} (smaller after proposals that were not kept). When the loop passes hints
 * (after failures), it takes bolder steps. It avoids configs it has already tried in this run and
 * moves that were discarded or crashed since the last kept change ({@link failedMoves}), also
 * across a resume (seed 001: never retry a discarded idea verbatim in the same context). Works on a
 * JSON file (`file`) or any {@link ConfigAdapter} (`config`: JSON or YAML file, in-memory artifact).
 *
 * @throws {ConfigError} `CONFIG_INVALID` for an invalid space (names the parameter).
 * @throws {LoopError} `PROPOSER_FAILED` from `propose()` when the config is not an object.
 */
export function createHyperparameterMutator(options: HyperparameterMutatorOptions): Proposer {
  const o = parseOptions(hyperparameterMutatorOptionsSchema, options, 'hyperparameter-mutator');
  const adapter: ConfigAdapter =
    o.config ?? createConfigFileAdapter({ dir: dirname(o.file!), file: basename(o.file!) });
  const tried = new Set<string>();
  const keys = Object.keys(o.space).sort();
  return {
    name: 'hyperparameter-mutator',
    propose: async (context) => {
      const { hints, history } = context;
      const config = await adapter.read(context);
      tried.add(JSON.stringify(config));
      const bold = hints.length > 0;
      const step = stepScale(history);
      const failed = failedMoves(history);
      const limits = o.constraints ? infeasibleLimits(history, o.constraints) : new Map<string, Limit>();
      const barred = (k: string, v: unknown) => {
        const l = limits.get(k);
        return l !== undefined && typeof v === 'number' && (v >= (l.above ?? Infinity) || v <= (l.below ?? -Infinity));
      };
      let key = keys[0]!;
      let value: unknown = config[key];
      for (let attempt = 0; attempt < o.maxTries; attempt++) {
        key = keys[Math.floor(o.random.next() * keys.length)]!;
        value = mutateValue(config[key], o.space[key]!, o.random, bold, step);
        const move = `${key} ${formatValue(config[key])} -> ${formatValue(value)}`;
        const fresh = !tried.has(JSON.stringify({ ...config, [key]: value }));
        if (value !== config[key] && fresh && !failed.has(move) && !barred(key, value)) break;
      }
      const previous = config[key];
      const next = { ...config, [key]: value };
      tried.add(JSON.stringify(next));
      await adapter.write(next, context);
      return {
        description: `${key} ${formatValue(previous)} -> ${formatValue(value)}`,
        ...(o.config?.path ? { changedFiles: [o.config.path] } : {}),
      };
    },
  };
}
