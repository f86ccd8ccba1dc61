import { describe, expect, it } from 'vitest';
import { createCounterProposer } from '@loop/internal-test-utils';
import type { KeepInput } from '../contracts/keep-policy.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { createLoop } from './create-loop.js';

describe('the keep policy sees the run so far', () => {
  it(
    'KeepInput.history holds every row before the candidate, baseline first ' +
      '(a Pareto keep policy rebuilds its front from it, also after a resume)',
    async () => {
      const artifact = createMemoryArtifact(0);
      const rollback = createMemoryRollback(artifact);
      let run = 0;
      const harness = {
        name: 'h',
        run: () => ({ exitCode: 0, signal: null, timedOut: false, durationMs: 1, value: [10, 9, 12, 8][run++] ?? 0 }),
      };
      const seen: { iteration: number; status: string }[][] = [];
      const keepPolicy = {
        name: 'spy',
        decide: (input: KeepInput) => {
          seen.push((input.history ?? []).map((r) => ({ iteration: r.iteration, status: r.status })));
          return { keep: input.candidate < input.incumbent, reason: 'spy' };
        },
      };
      await createLoop({
        artifact,
        rollback,
        proposer: createCounterProposer(artifact),
        scorer: createValueScorer('minimize'),
        harness,
        keep: { policy: keepPolicy },
        stop: maxIterations(3),
      }).run();
      expect(seen).toEqual([
        [{ iteration: 0, status: 'baseline' }],
        [
          { iteration: 0, status: 'baseline' },
          { iteration: 1, status: 'kept' },
        ],
        [
          { iteration: 0, status: 'baseline' },
          { iteration: 1, status: 'kept' },
          { iteration: 2, status: 'reverted' },
        ],
      ]);
    },
  );
});
