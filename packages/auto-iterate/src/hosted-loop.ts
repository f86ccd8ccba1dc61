import { isLoopError, type Loop } from '@loop/core';

/** The loop a host drives (`AutoIterate.open()`): core's {@link Loop} without `run()`. */
export type HostedLoop = Omit<Loop, 'run'>;

/** Misused calls touch nothing, so the run goes on and keeps its lock. */
const MISUSE = ['TRIAL_OPEN', 'TRIAL_UNKNOWN', 'EDIT_OUTSIDE_ARTIFACT'] as const;

/**
 * Wraps `loop` so that `release` runs once when the loop stops: an outcome with `stopped`,
 * `stop()`, or an error that ends it (with the error, so a failed baseline can be undone).
 */
export function hostedLoop(loop: Loop, release: (error?: unknown) => Promise<void>): HostedLoop {
  let released = false;
  const end = async (error?: unknown) => {
    if (released) return;
    released = true;
    await release(error);
  };
  const through = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      const out = await call();
      if (typeof out === 'object' && out !== null && 'stopped' in out && out.stopped) await end();
      return out;
    } catch (error) {
      if (!MISUSE.some((code) => isLoopError(error, code))) await end(error);
      throw error;
    }
  };
  return {
    ask: (options) => through(() => loop.ask(options)),
    tell: (trial, edit) => through(() => loop.tell(trial, edit)),
    step: () => through(() => loop.step()),
    stop: async (message) => {
      try {
        return await loop.stop(message);
      } finally {
        await end();
      }
    },
    on: loop.on,
    events: loop.events,
  };
}
