import type { MemoryArtifact, ProposalContext, Proposer } from '@loop/core';

/**
 * A proposer for a numeric {@link MemoryArtifact}: each iteration adds `step` (or the result of
 * `next`) to the value. For tests where the edit itself does not matter.
 */
export function createCounterProposer(
  artifact: MemoryArtifact<number>,
  next: (value: number, iteration: number) => number = (v) => v + 1,
): Proposer {
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

/**
 * A proposer that edits the memory artifact it is handed in `context.artifact` (in a parallel
 * batch, the candidate's working copy) rather than a captured one: sets its value to
 * `next(value, context)`. Use it with `createMemoryWorkingCopies`; `context.workingCopy?.k` is the
 * candidate's slot.
 *
 * @throws {Error} from `propose` when the context has no memory artifact.
 */
export function createContextProposer<T>(next: (value: T, context: ProposalContext) => T, name = 'context'): Proposer {
  return {
    name,
    propose: (context) => {
      const artifact = context.artifact as MemoryArtifact<T> | undefined;
      if (!artifact || typeof artifact.set !== 'function')
        throw new Error('context proposer: context.artifact is not a memory artifact');
      const before = artifact.get();
      const after = next(before, context);
      artifact.set(after);
      return { description: `value ${JSON.stringify(before)} -> ${JSON.stringify(after)}` };
    },
  };
}
