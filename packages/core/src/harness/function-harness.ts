import type { Harness, RunContext, RunRecord } from '../contracts/harness.js';
import type { CandidateData } from '../contracts/iteration-record.js';
import type { MaybePromise } from '../contracts/types.js';

/**
 * What a function harness's evaluation returns: a number, or a number with named dimensions,
 * named metrics (`metrics`: run measurements besides the objective, the same as `data.metrics`;
 * both given, they are merged and `metrics` wins) and facts for the candidate's record (`data`:
 * named metrics, intermediate reports).
 */
export type FunctionHarnessResult =
  | number
  | { value: number; dimensions?: Record<string, number>; metrics?: Record<string, number>; data?: CandidateData };

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
        const metrics =
          typeof result === 'number' || !result.metrics ? undefined : { ...result.data?.metrics, ...result.metrics };
        const data = typeof result === 'number' ? undefined : metrics ? { ...result.data, metrics } : result.data;
        const record: RunRecord = {
          exitCode: 0,
          signal: null,
          timedOut: false,
          durationMs: performanceNow() - started,
          value,
        };
        return { ...record, ...(dimensions ? { dimensions } : {}), ...(data ? { data } : {}) };
      } catch (error) {
        return {
          exitCode: 1,
          signal: null,
          timedOut: false,
          durationMs: performanceNow() - started,
          error: (error as Error)?.message ?? String(error),
        };
      }
    },
  };
}
