/** A promise with its resolve and reject exposed: for tests that control when async work finishes. */
export interface Deferred<T> {
  /** The promise. */
  readonly promise: Promise<T>;
  /** Resolves it. */
  readonly resolve: (value: T) => void;
  /** Rejects it. */
  readonly reject: (reason: unknown) => void;
}

/** Creates a {@link Deferred}. */
export function createDeferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A barrier for `parties` callers: see {@link createBarrier}. */
export interface Barrier {
  /** Waits until `parties` calls have arrived (the last arrival releases everyone). */
  readonly arrive: () => Promise<void>;
  /** How many have arrived so far. */
  readonly arrived: () => number;
  /** The most callers that were waiting at the same time. */
  readonly maxWaiting: () => number;
}

/**
 * A barrier: `arrive()` resolves only once `parties` callers have arrived. Code that runs its
 * callers one after another never gets past the first `arrive()` (the test times out), so a
 * passing test proves they ran concurrently, without sleeps.
 *
 * @example
 * const barrier = createBarrier(3);
 * const harness = createFunctionHarness('barrier', async () => (await barrier.arrive(), 1)); // runs must overlap
 */
export function createBarrier(parties: number): Barrier {
  const released = createDeferred();
  let arrived = 0;
  let waiting = 0;
  let maxWaiting = 0;
  return {
    arrive: async () => {
      arrived += 1;
      waiting += 1;
      maxWaiting = Math.max(maxWaiting, waiting);
      if (arrived >= parties) released.resolve();
      await released.promise;
      waiting -= 1;
    },
    arrived: () => arrived,
    maxWaiting: () => maxWaiting,
  };
}
