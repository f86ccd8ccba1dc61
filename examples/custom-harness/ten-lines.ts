import { createLoop, createMemoryArtifact, createMemoryRollback, createFunctionHarness,
  createValueScorer, createFunctionProposer, maxIterations } from '@loop/core';

const artifact = createMemoryArtifact({ x: 10 });
const summary = await createLoop({
  artifact,
  rollback: createMemoryRollback(artifact),
  proposer: createFunctionProposer('step', () => (artifact.set({ x: artifact.get().x - 1 }), { description: 'x - 1' })),
  harness: createFunctionHarness('square', () => artifact.get().x ** 2),
  scorer: createValueScorer('minimize'),
  stop: maxIterations(5),
}).run();
console.log(summary.baseline, '->', summary.best); // 100 -> 25
