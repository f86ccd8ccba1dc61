import { createCounterProposer, createFakeHarness, type FakeOutcome } from '@loop/internal-test-utils';
import { createMemoryArtifact, createMemoryRollback } from '../../artifacts/memory-artifact.js';
import { createValueScorer } from '../../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../../contracts/results-log.js';
import { createLoop } from '../create-loop.js';
import type { LoopOptions } from '../options.js';
import { maxIterations } from '../../contracts/stop-policy.js';
import type { Direction } from '../../contracts/types.js';

/** A loop over a memory artifact (0), a counter proposer and a fake harness returning `scores` in turn. */
export function setup(scores: FakeOutcome[], extra: Partial<LoopOptions> = {}, direction: Direction = 'minimize') {
  const artifact = createMemoryArtifact(0);
  const rollback = createMemoryRollback(artifact);
  const results = createMemoryResultsLog();
  const harness = createFakeHarness({ scores });
  const loop = createLoop({
    artifact,
    rollback,
    results,
    harness,
    proposer: createCounterProposer(artifact),
    scorer: createValueScorer(direction),
    stop: maxIterations(scores.length - 1),
    ...extra,
  });
  return { artifact, rollback, results, harness, loop };
}
