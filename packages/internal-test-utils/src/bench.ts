/**
 * Interleaved benchmarks (issue 31): every ratio a bench prints is taken pair by pair. Each cycle
 * runs every variant once, back to back (the order rotates each cycle, so no variant always runs
 * first), and a ratio A/B is the list of per-cycle `time(A) / time(B)` with its min, median and
 * max. A load change then moves both sides of a pair, not one block of samples; a block-wise
 * tinybench run measured which block got the quieter minute (ratios 2x away under load).
 *
 * No dependency on vitest or on another package: benches of every package (core included, which
 * cannot depend on this package) import it as `@loop/internal-test-utils/bench`.
 *
 * @example
 * const r = await interleave({ ours: () => step(), git: () => gitCycle() }, { cycles: 30, warmup: 2 });
 * console.log(loadLine(r.load));
 * console.log(`ours / git: ${formatRatio(pairRatios(r, 'ours', 'git'))}`);
 */
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

/**
 * A variant: one sample of it (sync or async); its wall time in ms is one sample, unless it returns
 * (or resolves to) `{ measuredMs }`, the time of the part it measured itself (its set-up excluded).
 */
export type BenchVariant = () => unknown;

/** What a variant returns to report its own time instead of its wall time. */
export interface MeasuredSample {
  readonly measuredMs: number;
}

const measuredOf = (value: unknown): number | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const ms = (value as MeasuredSample).measuredMs;
  return typeof ms === 'number' ? ms : undefined;
};

/** Options of {@link interleave}. */
export interface InterleaveOptions {
  /** Measured cycles (each runs every variant once). */
  readonly cycles: number;
  /** Unmeasured cycles first (JIT, caches). @default 1 */
  readonly warmup?: number;
}

/** The 1, 5 and 15 minute load averages (`os.loadavg()`) and the number of cores. */
export interface LoadReading {
  readonly one: number;
  readonly five: number;
  readonly fifteen: number;
  readonly cores: number;
}

/** What {@link interleave} measured: per variant, one time in ms per measured cycle (index = cycle). */
export interface Interleaved {
  readonly samples: ReadonlyMap<string, readonly number[]>;
  readonly cycles: number;
  /** The load when the measured cycles started and when they ended. */
  readonly load: { readonly before: LoadReading; readonly after: LoadReading };
}

/** Min, median and max of a list of numbers (NaN for an empty list). */
export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
  readonly n: number;
}

/** The current load (`os.loadavg()`) and core count. */
export function readLoad(): LoadReading {
  const [one = 0, five = 0, fifteen = 0] = loadavg();
  return { one, five, fifteen, cores: availableParallelism() };
}

/**
 * Runs every variant once per cycle, `warmup` unmeasured cycles then `cycles` measured ones; the
 * variants' order rotates by one each cycle (A B C, B C A, C A B, ...).
 *
 * @throws whatever a variant throws (a bench that fails must not print a ratio).
 */
export async function interleave(
  variants: Readonly<Record<string, BenchVariant>>,
  options: InterleaveOptions,
): Promise<Interleaved> {
  const names = Object.keys(variants);
  const samples = new Map<string, number[]>(names.map((n) => [n, []]));
  const warmup = options.warmup ?? 1;
  let before = readLoad();
  for (let cycle = -warmup; cycle < options.cycles; cycle += 1) {
    if (cycle === 0) before = readLoad();
    const shift = ((cycle % names.length) + names.length) % names.length;
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(k + shift) % names.length]!;
      const start = performance.now();
      const value: unknown = await variants[name]!();
      const ms = measuredOf(value) ?? performance.now() - start;
      if (cycle >= 0) samples.get(name)!.push(ms);
    }
  }
  return { samples, cycles: options.cycles, load: { before, after: readLoad() } };
}

/** Min, median and max of `xs`. */
export function spread(xs: readonly number[]): Spread {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  const median = s.length === 0 ? NaN : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  return { min: s[0] ?? NaN, median, max: s[s.length - 1] ?? NaN, n: s.length };
}

/** The samples of one variant. @throws Error when the variant was not measured. */
export function samplesOf(result: Interleaved, name: string): readonly number[] {
  const xs = result.samples.get(name);
  if (!xs) throw new Error(`bench: no variant named ${name}`);
  return xs;
}

/** Min/median/max of a variant's per-cycle times, ms. */
export function timeOf(result: Interleaved, name: string): Spread {
  return spread(samplesOf(result, name));
}

/** The per-cycle ratios `time(a) / time(b)` (same cycle), with their min, median and max. */
export function pairRatios(result: Interleaved, a: string, b: string): Spread {
  const xs = samplesOf(result, a);
  const ys = samplesOf(result, b);
  return spread(xs.map((x, i) => x / ys[i]!));
}

/** `1.23x (1.01-1.50x)`: the median ratio and the min-max of the per-pair ratios. */
export function formatRatio(r: Spread, digits = 2): string {
  return `${r.median.toFixed(digits)}x (${r.min.toFixed(digits)}-${r.max.toFixed(digits)}x)`;
}

/** `12.3 ms (10.1-15.0)`: median and min-max of per-cycle times. */
export function formatTime(t: Spread, digits = 1): string {
  return `${t.median.toFixed(digits)} ms (${t.min.toFixed(digits)}-${t.max.toFixed(digits)})`;
}

/** `load 1.22 / 1.37 / 1.71 (1, 5, 15 min; 2 cores)`, or the readings before and after a run. */
export function loadLine(load: LoadReading | Interleaved['load'] = readLoad()): string {
  const one = (l: LoadReading) => `${l.one.toFixed(2)} / ${l.five.toFixed(2)} / ${l.fifteen.toFixed(2)}`;
  if ('before' in load) {
    return `load ${one(load.before)} before, ${one(load.after)} after (1, 5, 15 min; ${load.before.cores} cores)`;
  }
  return `load ${one(load)} (1, 5, 15 min; ${load.cores} cores)`;
}
