import { describe, expect, it } from 'vitest';
import { createHyperparameterMutator, infeasibleLimits } from './hyperparameter-mutator.js';
import type { IterationRecord } from '../contracts/iteration-record.js';
import { createMemoryArtifact } from '../artifacts/memory-artifact.js';
import type { ProposalContext } from '../contracts/proposer.js';
import { createSeededRandom } from '../stats/random.js';
import { createMemoryConfigAdapter } from './tpe/config-adapter.js';

const space = { width: { min: 16, max: 1024, integer: true }, act: { values: ['relu', 'tanh', 'gelu'] } };
const constraints = (r: IterationRecord) =>
  r.data?.metrics?.params_k === undefined ? undefined : [r.data.metrics.params_k - 300];
// The baseline (width 256) is feasible; widening to 400 broke the parameter budget.
const history: IterationRecord[] = [
  {
    iteration: 0,
    candidateId: '',
    score: 1,
    status: 'baseline',
    description: 'baseline',
    data: { metrics: { params_k: 256 } },
  },
  {
    iteration: 1,
    candidateId: '',
    score: 0.9,
    status: 'reverted',
    description: 'width 256 -> 400',
    data: { metrics: { params_k: 400 } },
  },
];
const ctx = (h: readonly IterationRecord[]) =>
  ({ iteration: h.length, attempt: 0, hints: [], history: h }) as unknown as ProposalContext;

async function widths(withConstraints: boolean): Promise<number[]> {
  const out: number[] = [];
  for (let seed = 1; seed <= 40; seed++) {
    const artifact = createMemoryArtifact<Record<string, unknown>>({ width: 256, act: 'relu' });
    const mutator = createHyperparameterMutator({
      config: createMemoryConfigAdapter(artifact),
      space,
      random: createSeededRandom(seed),
      ...(withConstraints ? { constraints } : {}),
    });
    await mutator.propose(ctx(history));
    out.push(artifact.get().width as number);
  }
  return out;
}

describe('hyperparameter mutator with constraints', () => {
  it(
    'after a move made the candidate infeasible, it proposes no value at or ' + 'beyond that move until the next keep',
    async () => {
      const barred = (await widths(true)).filter((w) => w >= 400);
      const without = (await widths(false)).filter((w) => w >= 400);
      expect(without.length).toBeGreaterThan(0); // without constraints the same seeds walk past 400
      expect(barred).toEqual([]);
    },
  );

  it('the limits come from infeasible rows since the last keep, in the direction of each move', () => {
    expect(infeasibleLimits(history, constraints)).toEqual(new Map([['width', { above: 400 }]]));
    const after: IterationRecord[] = [
      ...history,
      {
        iteration: 2,
        candidateId: '',
        score: 0.8,
        status: 'kept',
        description: 'width 256 -> 300',
        data: { metrics: { params_k: 300 } },
      },
    ];
    expect(infeasibleLimits(after, constraints).size).toBe(0);
    const down: IterationRecord[] = [
      ...history,
      {
        iteration: 2,
        candidateId: '',
        score: 0.95,
        status: 'reverted',
        description: 'width 256 -> 100',
        data: { metrics: { params_k: 500 } },
      },
    ];
    expect(infeasibleLimits(down, constraints)).toEqual(new Map([['width', { above: 400, below: 100 }]]));
  });
});
