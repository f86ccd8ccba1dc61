import { describeRollbackStrategy } from '@loop/internal-test-utils';
import { createMemoryArtifact, createMemoryRollback } from './memory-artifact.js';

describeRollbackStrategy('memory', async () => {
  const artifact = createMemoryArtifact('v0');
  return { rollback: createMemoryRollback(artifact), write: (c) => artifact.set(c), read: () => artifact.get() };
});
