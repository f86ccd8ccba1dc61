import type { Harness, RunContext, RunRecord } from './harness.js';
import type { MaybePromise } from './types.js';

/** What a function harness's evaluation returns: a number, or a number with named dimensions. */
export type FunctionHarnessResult = number | { value: number; dimensions?: Record<string, number> };

/**
 * A harness from an async function that returns the score itself: the few-lines way to write a
 * custom evaluation. A thrown error becomes a run with `error` set (a crash row), not an exception.
 * Pair it with {@link createValueScorer}.
 *
 * @example
 * const harness = createFunctionHarness('latency', async () => measureLatencyMs());
 */
export function createFunctionHarness(
  name: string,
  evaluate: (context: RunContext) => MaybePromise<FunctionHarnessResult>,
  performanceNow: () => number = () => performance.now(),
): Harness {
  return {
    name,
    run: async (context): Promise<RunRecord> => {
      const started = performanceNow();
      try {
        const result = await evaluate(context);
        const value = typeof result === 'number' ? result : result.value;
        const dimensions = typeof result === 'number' ? undefined : result.dimensions;
        return { exitCode: 0, signal: null, timedOut: false, durationMs: performanceNow() - started, value, ...(dimensions ? { dimensions } : {}) };
      } catch (error) {
        return { exitCode: 1, signal: null, timedOut: false, durationMs: performanceNow() - started, error: (error as Error)?.message ?? String(error) };
      }
    },
  };
}
