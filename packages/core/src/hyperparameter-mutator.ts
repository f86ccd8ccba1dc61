import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { LoopError, parseOptions } from './errors.js';
import type { Proposer } from './proposer.js';
import { writeJsonAtomic } from './state-file.js';
import type { RandomSource } from './types.js';

/** One hyperparameter's search space: a list of values, or a numeric range. */
export type ParameterSpace =
  | { values: ReadonlyArray<string | number | boolean> }
  | { min: number; max: number; scale?: 'linear' | 'log'; integer?: boolean };

/** Options of {@link createHyperparameterMutator}. */
export interface HyperparameterMutatorOptions {
  /** Absolute path of the JSON config file the proposer edits (a flat object). */
  file: string;
  /** The parameters it may change and their spaces; other keys are never touched. */
  space: Record<string, ParameterSpace>;
  /** The random source (seed it for reproducible runs). */
  random: RandomSource;
  /** Attempts to find a config not tried before in this run. @default 20 */
  maxTries?: number;
}

const spaceSchema = z.union([
  z.object({ values: z.array(z.union([z.string(), z.number(), z.boolean()])).min(2, 'needs at least 2 values') }).strict(),
  z
    .object({ min: z.number(), max: z.number(), scale: z.enum(['linear', 'log']).default('linear'), integer: z.boolean().default(false) })
    .strict()
    .refine((s) => s.max > s.min, { message: 'max must be greater than min', path: ['max'] })
    .refine((s) => s.scale !== 'log' || s.min > 0, { message: 'a log scale needs min > 0', path: ['min'] }),
]);

/** zod schema of {@link HyperparameterMutatorOptions}. */
export const hyperparameterMutatorOptionsSchema = z.object({
  file: z.string().refine((p) => isAbsolute(p), 'file must be an absolute path'),
  space: z.record(z.string(), spaceSchema).refine((s) => Object.keys(s).length > 0, 'space must name at least one parameter'),
  random: z.custom<RandomSource>((r) => typeof (r as RandomSource)?.next === 'function', 'random must have next()'),
  maxTries: z.number().int().positive().default(20),
});

type Space = z.output<typeof spaceSchema>;

function formatValue(v: unknown): string {
  return typeof v === 'number' ? String(Number(v.toPrecision(4))) : JSON.stringify(v);
}

/** Picks a new value for one parameter; `bold` doubles the step of numeric ranges. */
function mutateValue(current: unknown, space: Space, random: RandomSource, bold: boolean): unknown {
  if ('values' in space) {
    const others = space.values.filter((v) => v !== current);
    const index = space.values.indexOf(current as never);
    // Prefer a neighbour (one focused step); with a hint, any other value.
    if (!bold && index >= 0) {
      const neighbours = [space.values[index - 1], space.values[index + 1]].filter((v) => v !== undefined);
      return neighbours[Math.floor(random.next() * neighbours.length)];
    }
    return others[Math.floor(random.next() * others.length)];
  }
  const { min, max, scale, integer } = space;
  const cur = typeof current === 'number' && Number.isFinite(current) ? current : (min + max) / 2;
  const reach = bold ? 1.0 : 0.5;
  const sign = random.next() < 0.5 ? -1 : 1;
  const magnitude = 0.15 + random.next() * reach;
  let next = scale === 'log' ? cur * Math.exp(sign * magnitude) : cur + sign * magnitude * 0.5 * (max - min);
  next = Math.min(max, Math.max(min, next));
  if (integer) {
    next = Math.round(next);
    if (next === cur) next = Math.min(max, Math.max(min, cur + sign));
  } else next = Number(next.toPrecision(3));
  return next;
}

/**
 * A proposer that changes ONE hyperparameter of a JSON config file per iteration (seed 003:
 * "一次一变量", one variable at a time), chosen with a seeded random source. Discrete values
 * step to a neighbour; ranges move by a random factor (log scale) or fraction of the range.
 * When the loop passes hints (after failures), it takes bolder steps. It avoids configs it has
 * already tried in this run and moves (`key old -> new`) that the history shows were discarded or
 * crashed, also across a resume (seed 001: never retry a discarded idea verbatim).
 *
 * @throws {ConfigError} `CONFIG_INVALID` for an invalid space (names the parameter).
 * @throws {LoopError} `PROPOSER_FAILED` from `propose()` when the file is not a JSON object.
 */
export function createHyperparameterMutator(options: HyperparameterMutatorOptions): Proposer {
  const o = parseOptions(hyperparameterMutatorOptionsSchema, options, 'hyperparameter-mutator');
  const tried = new Set<string>();
  const keys = Object.keys(o.space).sort();
  return {
    name: 'hyperparameter-mutator',
    propose: async ({ hints, history }) => {
      let config: Record<string, unknown>;
      try {
        config = JSON.parse(await readFile(o.file, 'utf8'));
        if (config === null || typeof config !== 'object' || Array.isArray(config)) throw new Error('not a JSON object');
      } catch (error) {
        throw new LoopError('PROPOSER_FAILED', `[loop] [hyperparameter-mutator] cannot read ${o.file}: ${(error as Error).message}`, { cause: error });
      }
      tried.add(JSON.stringify(config));
      const bold = hints.length > 0;
      // Moves that were already tried and not kept (also from before a resume), by description.
      const failed = new Set(history.filter((r) => r.status !== 'kept' && r.status !== 'baseline').map((r) => r.description.split(' (')[0]));
      let key = keys[0]!;
      let value: unknown = config[key];
      for (let attempt = 0; attempt < o.maxTries; attempt++) {
        key = keys[Math.floor(o.random.next() * keys.length)]!;
        value = mutateValue(config[key], o.space[key]!, o.random, bold);
        const move = `${key} ${formatValue(config[key])} -> ${formatValue(value)}`;
        if (value !== config[key] && !tried.has(JSON.stringify({ ...config, [key]: value })) && !failed.has(move)) break;
      }
      const previous = config[key];
      const next = { ...config, [key]: value };
      tried.add(JSON.stringify(next));
      await writeJsonAtomic(o.file, next);
      return { description: `${key} ${formatValue(previous)} -> ${formatValue(value)}` };
    },
  };
}
