import { describe, expect, it } from 'vitest';
import { createMemoryArtifact } from '../../artifacts/memory-artifact.js';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import { createMemoryConfigAdapter } from './config-adapter.js';
import { modelLosses } from './ranking.js';
import { createTpeProposer } from './tpe-proposer.js';
import { ctx, run, space, start, type Config } from './test-fixtures/tpe-run.js';

describe('pruned runs in the Gaussian process (issue 27)', () => {
  it("a pruned run's loss in the model is the worst finished loss, whatever its early report", () => {
    const rows = [
      { iteration: 1, config: {}, loss: 3.0 },
      { iteration: 2, config: {}, loss: 3.4 },
      { iteration: 3, config: {}, loss: 9.5, prunedAt: 200 },
      { iteration: 4, config: {}, loss: 3.1, prunedAt: 800 },
    ];
    expect(modelLosses(rows)).toEqual([3.0, 3.4, 3.4, 3.4]);
    // No run finished yet: the reports are all there is.
    expect(modelLosses(rows.slice(2))).toEqual([9.5, 3.1]);
  });

  it('the proposal after a pruned run does not depend on how bad its early report was', async () => {
    const full = await run({ seed: 4, iterations: 12 });
    const propose = async (report: number) => {
      const history: IterationRecord[] = full.rows.map((r) =>
        r.iteration === 9 && r.status === 'reverted'
          ? {
              ...r,
              score: report,
              data: { pruned: { step: 200, value: report, reason: 'r', pruner: 'incumbent-curve' } },
            }
          : r,
      );
      let incumbent: Config = start;
      full.rows.forEach((r, i) => {
        if (r.status === 'kept') incumbent = full.evaluated[i]!;
      });
      const artifact = createMemoryArtifact<Config>(incumbent);
      const proposer = createTpeProposer({ config: createMemoryConfigAdapter(artifact), space, seed: 4 });
      return (await proposer.propose(ctx(history, 13))).description;
    };
    expect(full.rows[9]!.status).toBe('reverted');
    expect(await propose(5)).toBe(await propose(50));
  });
});
