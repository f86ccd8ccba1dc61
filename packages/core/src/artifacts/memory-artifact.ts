import { createHash } from 'node:crypto';
import type { Artifact } from '../contracts/artifact.js';
import { LoopError } from '../contracts/errors.js';
import type { RollbackStrategy } from '../contracts/rollback-strategy.js';

/** An in-memory artifact holding one JSON-serialisable value. */
export interface MemoryArtifact<T> extends Artifact {
  /** The current value. */
  readonly get: () => T;
  /** Replaces the value (what a proposer does). */
  readonly set: (value: T) => void;
}

function fingerprint(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value) ?? 'undefined')
    .digest('hex');
}

/**
 * An artifact whose state is a value in memory: for unit tests and for loops over values
 * (a prompt string, a parameter object). Its only mutable path is `value`.
 */
export function createMemoryArtifact<T>(initial: T, name = 'memory'): MemoryArtifact<T> {
  let value = structuredClone(initial);
  return {
    name,
    mutable: ['value'],
    readOnly: [],
    inspect: () => ({ value: fingerprint(value) }),
    get: () => value,
    set: (next) => {
      value = next;
    },
  };
}

/**
 * A rollback strategy for a {@link MemoryArtifact}: checkpoints are deep copies. Ids are
 * `v0` (the initial state), `v1`, ... for each committed candidate. Every revert is verified by
 * comparing fingerprints.
 *
 * @throws {LoopError} `RESTORE_FAILED` when a restore does not produce the checkpoint's value or an id is unknown.
 */
export function createMemoryRollback<T>(artifact: MemoryArtifact<T>): RollbackStrategy {
  const versions = new Map<string, T>([['v0', structuredClone(artifact.get())]]);
  let kept = 'v0';
  let next = 1;
  const restore = (id: string) => {
    const value = versions.get(id);
    if (value === undefined && !versions.has(id)) {
      throw new LoopError('RESTORE_FAILED', `[loop] [memory-rollback] unknown state ${id}`, { details: { id } });
    }
    artifact.set(structuredClone(value as T));
    if (fingerprint(artifact.get()) !== fingerprint(value)) {
      throw new LoopError('RESTORE_FAILED', `[loop] [memory-rollback] restore of ${id} did not verify`, {
        details: { id },
      });
    }
  };
  return {
    name: 'memory',
    checkpoint: (iteration) => ({ iteration, id: kept }),
    commit: () => {
      const id = `v${next++}`;
      versions.set(id, structuredClone(artifact.get()));
      return id;
    },
    keep: (_cp, candidateId) => {
      const id = candidateId ?? `v${next++}`;
      if (!versions.has(id)) versions.set(id, structuredClone(artifact.get()));
      kept = id;
      return id;
    },
    revert: (cp) => restore(cp.id),
    restoreBest: (bestId) => {
      restore(bestId);
      kept = bestId;
    },
    recover: (keptId) => {
      restore(keptId);
      kept = keptId;
    },
    currentId: () => kept,
  };
}
