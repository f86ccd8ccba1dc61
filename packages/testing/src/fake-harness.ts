import type { Harness, RunContext, RunRecord } from '@loop/core';

/** One scripted outcome: a score, or a crash of the given kind. */
export type FakeOutcome =
  number | { crash: 'timeout' | 'exit-code' | 'no-metric' | 'nan' } | { value: number; durationMs?: number };

/** Options of {@link createFakeHarness}. */
export interface FakeHarnessOptions {
  /** Scores (or crashes) returned in order; the first is the baseline. */
  scores?: readonly FakeOutcome[];
  /** Or a function of the run context (called when `scores` is exhausted or absent). */
  score?: (context: RunContext) => FakeOutcome;
  /** Called on each run, e.g. to advance a manual clock by the run's duration. */
  onRun?: (context: RunContext) => void;
  /** The fingerprint it reports. @default 'fake' */
  fingerprint?: () => string;
}

/** A harness fake plus the runs it saw. */
export interface FakeHarness extends Harness {
  /** The iterations it was run for, in order. */
  readonly runs: number[];
}

/**
 * A fake harness with scripted or function-driven scores, for policy tests in memory. Pair it with
 * `createValueScorer(direction)`: a score becomes `RunRecord.value`, a crash becomes the matching
 * failed run (timeout, non-zero exit, missing value, NaN).
 */
export function createFakeHarness(options: FakeHarnessOptions): FakeHarness {
  const runs: number[] = [];
  const script = [...(options.scores ?? [])];
  return {
    name: 'fake',
    runs,
    fingerprint: options.fingerprint ?? (() => 'fake'),
    run: (context): RunRecord => {
      runs.push(context.iteration);
      options.onRun?.(context);
      const outcome = script.length > 0 ? script.shift()! : options.score?.(context);
      if (outcome === undefined) throw new Error('fake harness: script exhausted and no score function');
      const base = { exitCode: 0, signal: null, timedOut: false, durationMs: 1 } as const;
      if (typeof outcome === 'number') return { ...base, value: outcome };
      if ('value' in outcome) return { ...base, value: outcome.value, durationMs: outcome.durationMs ?? 1 };
      switch (outcome.crash) {
        case 'timeout':
          return { ...base, exitCode: null, signal: 'SIGKILL', timedOut: true };
        case 'exit-code':
          return { ...base, exitCode: 1 };
        case 'nan':
          return { ...base, value: Number.NaN };
        default:
          return { ...base };
      }
    },
  };
}
