import { LoopError } from '../contracts/errors.js';
import type { Harness } from '../contracts/harness.js';
import { createMemoryArtifact, type MemoryArtifact } from './memory-artifact.js';
import type { WorkingCopy, WorkingCopyProvider } from '../contracts/working-copy.js';

/** A working copy made by {@link createMemoryWorkingCopies}: its artifact is a {@link MemoryArtifact}. */
export interface MemoryWorkingCopy<T> extends WorkingCopy {
  /** The copy's value: a deep copy of the main artifact's value when the copy was made. */
  readonly artifact: MemoryArtifact<T>;
}

/**
 * Working copies of a {@link MemoryArtifact}, for tests and loops over in-memory values: each copy
 * is a new memory artifact holding a deep copy (`structuredClone`) of the main value, evaluated
 * by the harness `harnessFor` builds for it; `adopt` sets the main value to a deep copy of the
 * copy's. Deterministic: no timers, no randomness, nothing shared between copies.
 *
 * A proposer used with it edits `context.artifact` (the copy), not a captured main artifact.
 *
 * @param harnessFor - builds the harness that evaluates one copy (it reads `copy.get()`).
 * @throws {LoopError} `RESTORE_FAILED` from `adopt` when the copy was not made by this provider.
 *
 * @example
 * const artifact = createMemoryArtifact({ x: 10 });
 * const workingCopies = createMemoryWorkingCopies(artifact, (copy) => createFunctionHarness('square', () =>
 * copy.get().x ** 2));
 * createLoop({ ..., artifact, parallel: { candidates: 4, workingCopies } });
 */
export function createMemoryWorkingCopies<T>(
  artifact: MemoryArtifact<T>,
  harnessFor: (copy: MemoryArtifact<T>, info: { readonly iteration: number; readonly k: number }) => Harness,
): WorkingCopyProvider {
  const made = new WeakSet<WorkingCopy>();
  return {
    name: `memory-copies(${artifact.name})`,
    create: (iteration, k): MemoryWorkingCopy<T> => {
      const copyArtifact = createMemoryArtifact(artifact.get(), `${artifact.name}#${iteration}.${k}`);
      const copy: MemoryWorkingCopy<T> = {
        name: `copy(${iteration}.${k})`,
        iteration,
        k,
        artifact: copyArtifact,
        harness: harnessFor(copyArtifact, { iteration, k }),
      };
      made.add(copy);
      return copy;
    },
    adopt: (copy) => {
      if (!made.has(copy)) {
        throw new LoopError(
          'RESTORE_FAILED',
          `[loop] [memory-copies] ${copy.name} was not made by this provider; cannot adopt it`,
          { details: { copy: copy.name } },
        );
      }
      const before = artifact.inspect() as Record<string, string | null>;
      const value = (copy as MemoryWorkingCopy<T>).artifact.get();
      artifact.set(structuredClone(value));
      return before.value === (artifact.inspect() as Record<string, string | null>).value ? [] : ['value'];
    },
  };
}
