import { describe, expect, it, vi } from 'vitest';
import * as step from './tpe-step.js';
import { createMemoryArtifact } from '../../artifacts/memory-artifact.js';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import type { Proposal } from '../../contracts/proposer.js';
import { createMemoryConfigAdapter } from './config-adapter.js';
import type { TpeParameter } from './space.js';
import { createTpeProposer } from './tpe-proposer.js';
import { ctx, run, space, start, type Config } from './test-fixtures/tpe-run.js';

vi.mock('./tpe-step.js', { spy: true });
const spy = vi.mocked(step.chooseConfig);

/** One parameter with four values: the incumbent's, and three a run can try. */
const small: Record<string, TpeParameter> = { optimizer: { values: ['sgd', 'adam', 'rmsprop', 'adagrad'] } };
const baseline: IterationRecord = {
  iteration: 0,
  candidateId: '',
  score: 1,
  status: 'baseline',
  description: 'baseline',
};
const rowOf = (iteration: number, p: Proposal, score: number): IterationRecord => ({
  iteration,
  candidateId: '',
  score,
  status: 'reverted',
  description: p.description,
  ...(p.data ? { data: p.data } : {}),
});

describe('the model-based proposer on the async schedule (issue 27)', () => {
  it("each proposal's record carries the full config it wrote (data.params)", async () => {
    const artifact = createMemoryArtifact<Config>(start);
    const proposer = createTpeProposer({ config: createMemoryConfigAdapter(artifact), space, seed: 2 });
    const p = await proposer.propose(ctx([{ ...baseline, score: 0.5 }], 1));
    const { seed: _notSearched, ...written } = artifact.get();
    expect(p.data?.params).toEqual(written);
  });

  it('a candidate still running is pending at the config written for it, though newer rows came since', async () => {
    // 13 and 14 are proposed from 12 rows; 13's row is written while 14 runs; then 15 is proposed.
    const full = await run({ seed: 5, iterations: 12 });
    let incumbent: Config = start;
    full.rows.forEach((r, i) => r.status === 'kept' && (incumbent = full.evaluated[i]!));
    const artifact = createMemoryArtifact<Config>(incumbent);
    const proposer = createTpeProposer({ config: createMemoryConfigAdapter(artifact), space, seed: 5 });
    const p13 = await proposer.propose(ctx(full.rows, 13));
    artifact.set(incumbent);
    const p14 = await proposer.propose(ctx(full.rows, 14));
    artifact.set(incumbent);
    spy.mockClear();
    await proposer.propose(ctx([...full.rows, rowOf(13, p13, 3)], 15));
    const pending = spy.mock.calls.map((c) => c[6]);
    // Computed again from 13 rows, 14 would be placed where it does not run (the model moved).
    expect(pending).toEqual([[{ ...incumbent, ...p14.data!.params }]]);
  });

  it('a finished candidate counts as evaluated, not as pending', async () => {
    const artifact = createMemoryArtifact<Config>({ optimizer: 'sgd' });
    const proposer = createTpeProposer({ config: createMemoryConfigAdapter(artifact), space: small, seed: 1 });
    await proposer.propose(ctx([baseline], 1));
    artifact.set({ optimizer: 'sgd' });
    const p2 = await proposer.propose(ctx([baseline], 2));
    artifact.set({ optimizer: 'sgd' });
    spy.mockClear();
    await proposer.propose({ ...ctx([baseline], 3), finished: [rowOf(2, p2, 2)] });
    const [call] = spy.mock.calls;
    expect(call![2].map((o) => [o.iteration, o.loss])).toEqual([
      [0, 1],
      [2, 2],
    ]);
    expect(call![6]).toHaveLength(1); // 1 is still running
  });
});
