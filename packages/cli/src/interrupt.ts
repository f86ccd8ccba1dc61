import type { WriteGate } from './write-gate.js';

/** How long a second Ctrl-C waits for the engine's abort path before it recovers itself, in ms. */
export const SECOND_INTERRUPT_GRACE_MS = 10_000;

/** A cancellable timer (injected in tests so that no test sleeps). */
export type SetTimer = (callback: () => void, ms: number) => () => void;

/** The default {@link SetTimer}: `setTimeout`, unref'd so it never keeps the process alive. */
export const realTimer: SetTimer = (callback, ms) => {
  const t = setTimeout(callback, ms);
  t.unref();
  return () => clearTimeout(t);
};

/** Options of {@link createInterruptHandler}. */
export interface InterruptOptions {
  /**
   * First Ctrl-C: ask the engine to stop (it reverts the in-flight candidate through the rollback, restores the best,
   * writes state).
   */
  abort: () => void;
  /** Second Ctrl-C: kill the command in flight now, so the engine's abort path need not wait out its grace. */
  killRunning: () => Promise<unknown>;
  /** Settles when the run has returned or thrown (the engine's abort path is complete). */
  settled: Promise<unknown>;
  /**
   * Last resort when the engine has not settled within `graceMs`: the preset's rollback recover
   * API (auto-iterate: `rollback.recover(<last kept id>)`, verified), never git directly.
   */
  recover: () => Promise<void>;
  /**
   * How long the second Ctrl-C waits for the engine, and then for `recover`, in ms. @default {@link
   * SECOND_INTERRUPT_GRACE_MS}
   */
  graceMs?: number;
  /** A progress line (stdout). */
  info: (line: string) => void;
  /** A final line before exiting (stderr). */
  error: (line: string) => void;
  /** Ends the process with this code. */
  exit: (code: number) => void;
  /** Exit codes: interrupted (130) and restore failed (4). */
  codes: { interrupted: number; restoreFailed: number };
  /** @default {@link realTimer} */
  setTimer?: SetTimer;
  /**
   * The rollback's writes ({@link WriteGate}): before the handler exits or recovers itself it
   * closes the gate and waits for the write in flight, so no `.git` file is left half-written.
   * `recover` then runs through `runExclusive`. @default none (nothing to wait for)
   */
  writes?: WriteGate;
}

/** Resolves `true` when `promise` settles within `ms`, `false` when the timer fires first. */
function within(promise: Promise<unknown>, ms: number, setTimer: SetTimer): Promise<boolean> {
  return new Promise((resolve) => {
    const cancel = setTimer(() => resolve(false), ms);
    promise.then(
      () => (cancel(), resolve(true)),
      () => (cancel(), resolve(true)),
    );
  });
}

/**
 * The Ctrl-C (SIGINT/SIGTERM) handler of `loop run`. The workspace is only ever restored through
 * the rollback, never by spawning git, and the process never exits while a rollback write is in
 * flight (issue 12):
 *
 * 1. First: `abort()`; the run stops after restoring the last kept state (exit 0 from the summary).
 * 2. Second: `killRunning()`, then wait up to `graceMs` for the engine's abort path. If it settles,
 * the run's own result decides the exit code (0 after a completed stop sequence). If not, close the write gate, wait
 * for the write
 *    in flight (unbounded: a write is never cut off), `recover()`, and exit 130, or 4 when it fails.
 * 3. Third: close the gate, wait for the write in flight, exit 130; `loop resume` recovers the
 *    last kept commit from results.tsv.
 */
export function createInterruptHandler(options: InterruptOptions): () => void {
  const graceMs = options.graceMs ?? SECOND_INTERRUPT_GRACE_MS;
  const setTimer = options.setTimer ?? realTimer;
  const seconds = `${Math.round(graceMs / 100) / 10} s`;
  const writes = options.writes;
  let interrupts = 0;
  /** Closes the gate and resolves once no rollback write is in flight. */
  const quiesce = async (): Promise<void> => {
    if (!writes) return;
    writes.close();
    if (writes.inFlight() > 0) options.info('interrupt: waiting for the git write in flight to land before exiting');
    await writes.idle();
  };
  const second = async (): Promise<void> => {
    options.info(
      `interrupt: stopping the running command now; waiting up to ${seconds} ` +
        `for the rollback to restore the last kept state (Ctrl-C again to exit ` +
        `once the write in flight has landed)`,
    );
    await options.killRunning().catch(() => undefined);
    if (await within(options.settled, graceMs, setTimer)) return; // the engine finished its abort path: run() returns
    if (interrupts > 2) return;
    await quiesce();
    if (interrupts > 2) return;
    const recover = () => Promise.resolve().then(() => options.recover());
    const ok = await (writes ? writes.runExclusive(recover) : recover()).then(
      () => true,
      () => false,
    );
    if (interrupts > 2) return;
    options.error(
      ok
        ? `aborted: the run did not stop within ${seconds}; the workspace was ` +
            `reset to the last kept state through the rollback\n`
        : 'aborted: could not restore the last kept state; run "loop resume" (it ' +
            'recovers the last kept commit) or inspect the workspace\n',
    );
    options.exit(ok ? options.codes.interrupted : options.codes.restoreFailed);
  };
  const third = async (): Promise<void> => {
    await quiesce();
    options.error(
      'aborted: the workspace may still hold the interrupted candidate; "loop ' +
        'resume" resets it to the last kept commit\n',
    );
    options.exit(options.codes.interrupted);
  };
  return () => {
    interrupts += 1;
    if (interrupts === 1) {
      options.info(
        'interrupt: stopping after restoring the last kept state (Ctrl-C again to stop the running command now)',
      );
      options.abort();
    } else if (interrupts === 2) {
      void second();
    } else if (interrupts === 3) {
      void third();
    }
  };
}
