import { describe, expect, it } from 'vitest';
import { createLoop } from '../../engine/create-loop.js';
import { createFunctionHarness } from '../../harness/function-harness.js';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import { createMemoryArtifact, createMemoryRollback } from '../../artifacts/memory-artifact.js';
import { paretoFront } from '../../policies/pareto-front.js';
import { paretoKeep } from '../../policies/pareto-keep-policy.js';
import { hypervolume } from '../../policies/pareto-math.js';
import { createSeededRandom } from '../../stats/random.js';
import { createValueScorer } from '../../scoring/regex-scorer.js';
import { maxIterations } from '../../contracts/stop-policy.js';
import { createMemoryConfigAdapter } from './config-adapter.js';
import type { Observation } from './observations.js';
import { rankObservations } from './ranking.js';
import { createTpeProposer } from './tpe-proposer.js';

const row = (iteration: number, loss: number, extra: Partial<Observation> = {}): Observation => ({
  iteration,
  config: {},
  loss,
  ...extra,
});

describe("the model's order of rows", () => {
  it(
    'pruned runs (issue 27): after every finished run whatever their report, ' +
      "later-pruned first, then by report (Optuna's TPE)",
    () => {
      const rows = [
        row(1, 3.0),
        row(2, 1.0, { prunedAt: 200 }),
        row(3, 2.5, { prunedAt: 800 }),
        row(4, 4.0),
        row(5, 0.5, { prunedAt: 200 }),
      ];
      expect(rankObservations(rows, createSeededRandom(1)).map((o) => o.iteration)).toEqual([1, 4, 3, 5, 2]);
    },
  );

  it(
    'constraints: every feasible row before every infeasible one, infeasible ' +
      "ones by total violation (Optuna's constrained TPE)",
    () => {
      const rows = [
        row(1, 0.1, { violation: 2 }),
        row(2, 5, { violation: 0 }),
        row(3, 0.2, { violation: 0.5 }),
        row(4, 3),
        row(5, 9, { violation: 0 }),
      ];
      expect(rankObservations(rows, createSeededRandom(1)).map((o) => o.iteration)).toEqual([4, 2, 5, 3, 1]);
    },
  );

  it(
    "several objectives: non-dominated rows first (MOTPE's split), then the " +
      'next rank; rows missing an objective are left out',
    () => {
      const rows = [
        row(1, 0, { objectives: [1, 3] }),
        row(2, 0, { objectives: [2, 4] }),
        row(3, 0, { objectives: [3, 1] }),
        row(4, 0, { objectives: [4, 4] }),
        row(5, 0),
        row(6, 0, { objectives: [2, 2] }),
      ];
      const ranked = rankObservations(rows, createSeededRandom(3)).map((o) => o.iteration);
      expect(ranked.slice(0, 3).sort()).toEqual([1, 3, 6]);
      expect(ranked.slice(3)).toEqual([2, 4]);
    },
  );
});

describe('TPE proposer with several objectives', () => {
  it(
    'spreads along the front: a larger hypervolume after 30 rows than the ' +
      'same proposer on the first objective alone',
    async () => {
      // Two conflicting objectives over (x, y): f1 = x + y², f2 = (1 - x) + y² (the front: y = 0).
      const f = (c: Record<string, unknown>) =>
        [(c.x as number) + (c.y as number) ** 2, 1 - (c.x as number) + (c.y as number) ** 2] as const;
      const objectives = [
        { metric: 'f1', direction: 'minimize' },
        { metric: 'f2', direction: 'minimize' },
      ] as const;
      const volume = async (seed: number, multi: boolean) => {
        const artifact = createMemoryArtifact<Record<string, unknown>>({ x: 0.5, y: 0.8 });
        const rows: IterationRecord[] = [];
        const loop = createLoop({
          artifact,
          rollback: createMemoryRollback(artifact),
          proposer: createTpeProposer({
            config: createMemoryConfigAdapter(artifact),
            space: { x: { min: 0, max: 1 }, y: { min: -1, max: 1 } },
            seed,
            ...(multi ? { objectives } : {}),
          }),
          harness: createFunctionHarness('two', () => {
            const [f1, f2] = f(artifact.get());
            return { value: f1, data: { metrics: { f1, f2 } } };
          }),
          scorer: createValueScorer('minimize'),
          keep: { policy: paretoKeep({ objectives }) },
          stop: maxIterations(29),
        });
        for (const type of ['baseline', 'kept', 'reverted'] as const)
          loop.on(type as never, (e: { record: IterationRecord }) => rows.push(e.record));
        await loop.run();
        return hypervolume(
          paretoFront(rows, objectives).map((p) => p.losses),
          [2, 2],
        );
      };
      let multi = 0;
      let single = 0;
      for (const seed of [1, 2, 3]) {
        multi += await volume(seed, true);
        single += await volume(seed, false);
      }
      expect(multi).toBeGreaterThan(single);
    },
  );
});
