import { createContextProposer } from '@loop/internal-test-utils';
import { createFunctionHarness } from '../../harness/function-harness.js';
import type { Harness } from '../../contracts/harness.js';
import { createMemoryArtifact, createMemoryRollback, type MemoryArtifact } from '../../artifacts/memory-artifact.js';
import { createMemoryWorkingCopies } from '../../artifacts/memory-working-copies.js';
import type { Proposer } from '../../contracts/proposer.js';
import { createValueScorer } from '../../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../../contracts/results-log.js';
import { createLoop } from '../create-loop.js';
import type { LoopOptions } from '../options.js';
import { maxIterations } from '../../contracts/stop-policy.js';

/** A loop over a number (minimize: the score is the value) with K candidates in memory copies. */
export function setup(options: {
  candidates: number;
  /** The value candidate `k` of the batch starting at `first` proposes. */
  propose: (value: number, k: number, iteration: number) => number;
  copyHarness?: (copy: MemoryArtifact<number>, k: number) => Harness;
  mainHarness?: (artifact: MemoryArtifact<number>) => Harness;
  stop?: number;
  extra?: Partial<LoopOptions>;
  parallel?: { concurrency?: number; remeasureIncumbent?: number };
  proposer?: Proposer;
}) {
  const artifact = createMemoryArtifact(10);
  const results = createMemoryResultsLog();
  const copyHarness = options.copyHarness ?? ((copy) => createFunctionHarness('value', () => copy.get()));
  const workingCopies = createMemoryWorkingCopies(artifact, (copy, { k }) => copyHarness(copy, k));
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    results,
    proposer:
      options.proposer ?? createContextProposer<number>((v, c) => options.propose(v, c.workingCopy!.k, c.iteration)),
    harness: options.mainHarness?.(artifact) ?? createFunctionHarness('value', () => artifact.get()),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(options.stop ?? options.candidates),
    parallel: { candidates: options.candidates, workingCopies, ...options.parallel },
    ...options.extra,
  });
  return { artifact, results, loop };
}
