import { describe, expect, it } from 'vitest';
import { createLoop } from '../engine/create-loop.js';
import { createFunctionHarness } from '../harness/function-harness.js';
import type { IterationRecord } from '../contracts/iteration-record.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { paretoFront } from './pareto-front.js';
import { paretoKeep, type ParetoKeepOptions, type ParetoRecord } from './pareto-keep-policy.js';
import { hypervolume, nonDominationRanks } from './pareto-math.js';

// Each state i is a (latency_ms, accuracy) pair: latency minimised, accuracy maximised.
const STATES: [number, number][] = [
  [100, 0.8], // 0 baseline
  [90, 0.82], // 1 dominates the baseline
  [120, 0.9], // 2 trade-off: slower, more accurate
  [95, 0.81], // 3 dominated by 1
  [80, 0.7], // 4 trade-off: fastest
  [85, 0.95], // 5 dominates 1 and 2
  [200, 0.5], // 6 dominated by everything
];
// Memory per state: only state 6 of the constraints test exceeds 200.
const memoryOf = (state: number, states: readonly [number, number][]) => (states === STATES || state !== 6 ? 100 : 500);
const objectives = [
  { metric: 'latency_ms', direction: 'minimize' },
  { metric: 'accuracy', direction: 'maximize' },
] as const;

async function run(options: Partial<ParetoKeepOptions> = {}, states: readonly [number, number][] = STATES) {
  const artifact = createMemoryArtifact(0);
  let next = 0;
  const rows: IterationRecord[] = [];
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer: {
      name: 'scripted',
      propose: () => {
        artifact.set(++next);
        return { description: `state ${next}` };
      },
    },
    harness: createFunctionHarness('two', () => {
      const [latency_ms, accuracy] = states[artifact.get()]!;
      return {
        value: latency_ms,
        data: { metrics: { latency_ms, accuracy, memory_mb: memoryOf(artifact.get(), states) } },
      };
    }),
    scorer: createValueScorer('minimize'),
    keep: { policy: paretoKeep({ objectives, ...options }) },
    stop: maxIterations(STATES.length - 1),
  });
  for (const type of ['baseline', 'kept', 'reverted'] as const)
    loop.on(type as never, (e: { record: IterationRecord }) => rows.push(e.record));
  await loop.run();
  return { rows, final: artifact.get() };
}

const pareto = (r: IterationRecord) => r.data?.pareto as ParetoRecord | undefined;

describe('Pareto keep policy', () => {
  it(
    'records in each row whether the candidate added a non-dominated point ' + 'and which front points it dominated',
    async () => {
      const { rows } = await run();
      expect(rows.slice(1).map((r) => pareto(r)?.nonDominated)).toEqual([true, true, false, true, true, false]);
      expect(pareto(rows[1]!)?.dominates).toEqual([0]);
      expect(pareto(rows[5]!)?.dominates).toEqual([1, 2]);
      expect(pareto(rows[5]!)?.frontSize).toBe(2);
      expect(rows[5]!.description).toBe('state 5 (Pareto: non-dominated, front 2, dominates 1, 2)');
      expect(rows[3]!.description).toBe('state 3');
    },
  );

  it(
    'the front is the non-dominated evaluated states (kept or reverted), ' +
      "each with its row's candidate id; rebuilt from rows alone",
    async () => {
      const { rows } = await run();
      const front = paretoFront(rows, objectives);
      expect(front.map((p) => p.iteration)).toEqual([4, 5]);
      expect(front.map((p) => p.values)).toEqual([
        { latency_ms: 80, accuracy: 0.7 },
        { latency_ms: 85, accuracy: 0.95 },
      ]);
      expect(front.every((p) => p.candidateId === rows[p.iteration]!.candidateId)).toBe(true);
    },
  );

  it(
    'default incumbent rule: a weighted scalarisation normalised by the ' +
      'baseline (equal weights) must strictly improve',
    async () => {
      const { rows, final } = await run();
      // scalarised = latency/100 - accuracy/0.8: 0 (baseline), -0.125 (kept), 0.075, -0.0625, -0.075 (not below
      // -0.125),
      // -0.3375 (kept), 1.375.
      expect(rows.slice(1).map((r) => r.status)).toEqual([
        'kept',
        'reverted',
        'reverted',
        'reverted',
        'kept',
        'reverted',
      ]);
      expect(rows.slice(1).map((r) => pareto(r)?.scalarised)).toEqual([
        0.9 - 0.82 / 0.8,
        1.2 - 0.9 / 0.8,
        0.95 - 0.81 / 0.8,
        0.8 - 0.7 / 0.8,
        0.85 - 0.95 / 0.8,
        2 - 0.5 / 0.8,
      ]);
      expect(final).toBe(5);
    },
  );

  it('incumbent "non-dominated": every candidate that adds a non-dominated point is kept, and only those', async () => {
    const { rows } = await run({ incumbent: 'non-dominated' });
    expect(rows.slice(1).map((r) => r.status)).toEqual(['kept', 'kept', 'reverted', 'kept', 'kept', 'reverted']);
  });

  it('with constraints an infeasible state is never kept and never on the front, whatever its objectives', async () => {
    // state 6 would dominate every other, but uses 500 MB
    const states: [number, number][] = [...STATES.slice(0, 6), [70, 0.99]];
    const constraints = (r: IterationRecord) => [(r.data?.metrics?.memory_mb ?? Infinity) - 200];
    const { rows, final } = await run({ incumbent: 'non-dominated', constraints }, states);
    const last = rows.at(-1)!;
    expect(last.status).toBe('reverted');
    expect(pareto(last)?.nonDominated).toBe(false);
    expect(final).toBe(5);
    expect(paretoFront(rows, objectives, { constraints }).map((p) => p.iteration)).toEqual([4, 5]);
    expect(paretoFront(rows, objectives).map((p) => p.iteration)).toEqual([6]);
  });

  it('non-domination ranks and hypervolume (2-D and 3-D) are exact on small cases', () => {
    expect(
      nonDominationRanks([
        [1, 3],
        [2, 2],
        [3, 1],
        [2, 3],
        [3, 3],
      ]),
    ).toEqual([0, 0, 0, 1, 2]);
    expect(
      hypervolume(
        [
          [1, 3],
          [2, 2],
          [3, 1],
        ],
        [4, 4],
      ),
    ).toBe(6);
    expect(hypervolume([[5, 5]], [4, 4])).toBe(0);
    expect(hypervolume([[0, 0, 0]], [1, 2, 3])).toBe(6);
    expect(
      hypervolume(
        [
          [0, 1, 1],
          [1, 0, 1],
          [1, 1, 0],
        ],
        [2, 2, 2],
      ),
    ).toBe(4);
  });
});
