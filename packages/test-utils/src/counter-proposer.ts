import type { MemoryArtifact, Proposer } from '@loop/core';

/**
 * A proposer for a numeric {@link MemoryArtifact}: each iteration adds `step` (or the result of
 * `next`) to the value. For tests where the edit itself does not matter.
 */
export function createCounterProposer(artifact: MemoryArtifact<number>, next: (value: number, iteration: number) => number = (v) => v + 1): Proposer {
  return {
    name: 'counter',
    propose: ({ iteration }) => {
      const before = artifact.get();
      const after = next(before, iteration);
      artifact.set(after);
      return { description: `value ${before} -> ${after}` };
    },
  };
}
