/**
 * The writes a Ctrl-C must never cut off: the rollback's operations, which rewrite `.git/index`,
 * refs and the tree through async fs calls (libuv's threadpool). `process.exit` while one is pending
 * can leave a truncated file (issue 12: a torn ref after a double Ctrl-C). The gate counts the
 * operations in flight, and once closed lets no new one start, so an interrupt handler can wait for
 * the one in flight and then exit with nothing half-written.
 */
export interface WriteGate {
  /**
   * Runs `op` counted as in flight; once {@link WriteGate.close}d, returns a promise that never settles and never calls
   * `op`.
   */
  readonly run: <T>(op: () => Promise<T>) => Promise<T>;
  /** Runs `op` counted as in flight even when closed (the interrupt handler's own recover). */
  readonly runExclusive: <T>(op: () => Promise<T>) => Promise<T>;
  /** How many operations are in flight now. */
  readonly inFlight: () => number;
  /** From now on no new operation starts (those in flight finish). Idempotent. */
  readonly close: () => void;
  /** True once closed. */
  readonly closed: () => boolean;
  /** Resolves when no operation is in flight (at once when none is). */
  readonly idle: () => Promise<void>;
}

/** A new, open {@link WriteGate}. */
export function createWriteGate(): WriteGate {
  let count = 0;
  let isClosed = false;
  let waiters: Array<() => void> = [];
  const done = () => {
    count -= 1;
    if (count === 0) {
      const w = waiters;
      waiters = [];
      for (const resolve of w) resolve();
    }
  };
  const counted = async <T>(op: () => Promise<T>): Promise<T> => {
    count += 1;
    try {
      return await op();
    } finally {
      done();
    }
  };
  return {
    run: (op) => (isClosed ? new Promise<never>(() => {}) : counted(op)),
    runExclusive: counted,
    inFlight: () => count,
    close: () => void (isClosed = true),
    closed: () => isClosed,
    idle: () => (count === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}

/** The git rollback's operations that write (`@loop/rollback-git`'s GitResetRollback). */
export const ROLLBACK_WRITE_METHODS = [
  'start',
  'abandon',
  'checkpoint',
  'commit',
  'keep',
  'revert',
  'restoreBest',
  'recover',
] as const;

/**
 * Routes each write method of `rollback` (an object the engine already holds, so it is rewired in
 * place) through `gate.run`. Returns the original `recover`, for the interrupt handler to call
 * through `gate.runExclusive` after closing the gate.
 *
 * @param rollback - The preset's rollback object (auto-iterate's `run.rollback`).
 * @param methods - The method names to gate. @default {@link ROLLBACK_WRITE_METHODS}
 */
export function gateRollbackWrites<R extends object>(
  rollback: R,
  gate: WriteGate,
  methods: readonly string[] = ROLLBACK_WRITE_METHODS,
): { recover: ((keptId: string) => Promise<void>) | undefined } {
  const target = rollback as Record<string, unknown>;
  const originalRecover =
    typeof target['recover'] === 'function'
      ? (target['recover'] as (keptId: string) => Promise<void>).bind(rollback)
      : undefined;
  for (const name of methods) {
    const original = target[name];
    if (typeof original !== 'function') continue;
    const fn = original as (...args: unknown[]) => Promise<unknown>;
    target[name] = (...args: unknown[]) => gate.run(() => fn.apply(rollback, args));
  }
  return { recover: originalRecover };
}
