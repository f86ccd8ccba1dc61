import type { RollbackStrategy } from './rollback-strategy.js';
import type { EngineState, StateStore } from './state-store.js';

/**
 * A rollback strategy that rolls nothing back: every edit stays whatever the decision, and a
 * reverted row only records that the candidate was not better. For loops that only evaluate
 * (autoresearch's AR-3 acceptance rounds, whose edits belong to the pipeline) or that keep every
 * change by design. Checkpoint and kept ids are `''`; it has no `commit`, `restoreBest` or
 * `recover`. It breaks the rollback conformance suite's rules on purpose: never use it where a
 * worse candidate must be undone.
 *
 * @example
 * createLoop({ artifact, rollback: noRollback(), proposer, harness, scorer, stop: maxIterations(3) });
 */
export function noRollback(): RollbackStrategy {
  return {
    name: 'none',
    checkpoint: (iteration) => ({ iteration, id: '' }),
    keep: () => '',
    revert: () => {},
  };
}

/** A {@link StateStore} in memory, with every state it was given. */
export interface MemoryStateStore extends StateStore {
  /** Every state written, oldest first (copies: a later change to a written object does not reach them). */
  readonly writes: readonly EngineState[];
}

/**
 * A state store that keeps the engine's state in memory: for tests (the writes prove the order
 * and content of the engine's state writes) and for hosts that persist the state themselves.
 * `read` gives a copy of the last write, or `initial` (a resumed run's state) before any write;
 * nothing survives the process. It never throws.
 *
 * @param initial what `read` returns before the first write. @default undefined
 */
export function createMemoryStateStore(initial?: EngineState): MemoryStateStore {
  const writes: EngineState[] = [];
  const copy = (state: EngineState | undefined) => (state === undefined ? undefined : structuredClone(state));
  return {
    name: 'memory',
    writes,
    read: () => copy(writes.at(-1) ?? initial),
    write: (state) => void writes.push(structuredClone(state)),
  };
}
