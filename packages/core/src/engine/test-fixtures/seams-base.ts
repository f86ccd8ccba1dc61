import { createCounterProposer } from '@loop/internal-test-utils';
import { createMemoryArtifact, createMemoryRollback } from '../../artifacts/memory-artifact.js';
import { createValueScorer } from '../../scoring/regex-scorer.js';

/** The artifact, rollback, counter proposer and minimizing scorer most seam tests share. */
export const base = () => {
  const artifact = createMemoryArtifact(0);
  return {
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer: createCounterProposer(artifact),
    scorer: createValueScorer('minimize'),
  };
};
