import { describe, expect, it } from 'vitest';
import { createLoop } from '../../engine/create-loop.js';
import { createFunctionHarness } from '../../harness/function-harness.js';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import type { ProposalContext } from '../../contracts/proposer.js';
import { createMemoryArtifact, createMemoryRollback, type MemoryArtifact } from '../../artifacts/memory-artifact.js';
import { createMemoryWorkingCopies } from '../../artifacts/memory-working-copies.js';
import { createValueScorer } from '../../scoring/regex-scorer.js';
import { maxIterations } from '../../contracts/stop-policy.js';
import { createMemoryConfigAdapter, type ConfigAdapter } from './config-adapter.js';
import type { TpeParameter } from './space.js';
import { createTpeProposer } from './tpe-proposer.js';

type Config = Record<string, unknown>;
/** A small discrete space (3 x 4 x 3 = 36 configs), where two proposals from one model easily coincide. */
const space: Record<string, TpeParameter> = {
  optimizer: { values: ['sgd', 'adam', 'rmsprop'] },
  layers: { values: [1, 2, 3, 4] },
  activation: { values: ['relu', 'tanh', 'gelu'] },
};
const start: Config = { optimizer: 'sgd', layers: 1, activation: 'relu' };
const f = (c: Config) =>
  (c.optimizer === 'adam' ? 0 : 1) + Math.abs((c.layers as number) - 3) / 4 + (c.activation === 'gelu' ? 0 : 0.5);

/** The real engine with K candidates per batch in memory working copies; returns each batch's evaluated configs. */
async function runBatches(candidates: number, batches: number, seed: number): Promise<Config[][]> {
  const artifact = createMemoryArtifact<Config>(start);
  const rows: IterationRecord[] = [];
  const workingCopies = createMemoryWorkingCopies(artifact, (copy: MemoryArtifact<Config>, { k }) =>
    createFunctionHarness(`copy-${k}`, () => f(copy.get())),
  );
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer: createTpeProposer({ config: createMemoryConfigAdapter(artifact), space, seed }),
    harness: createFunctionHarness('main', () => f(artifact.get())),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(candidates * batches),
    parallel: { candidates, workingCopies },
  });
  for (const type of ['kept', 'reverted'] as const)
    loop.on(type, (e: { record: IterationRecord }) => rows.push(e.record));
  await loop.run();
  // Each row's description names the changes from the batch's incumbent; rebuild the configs in batch order.
  let incumbent = { ...start };
  const out: Config[][] = [];
  for (let b = 0; b < batches; b++) {
    const batch = rows
      .filter((r) => r.iteration > b * candidates && r.iteration <= (b + 1) * candidates)
      .sort((x, y) => x.iteration - y.iteration);
    const configs = batch.map((r) => {
      const c: Config = { ...incumbent };
      for (const part of r.description.split(', ')) {
        const [key, rest] = part.split(' ', 2) as [string, string];
        const to = rest === undefined ? undefined : part.slice(part.indexOf('-> ') + 3);
        c[key] = typeof start[key] === 'number' ? Number(to) : to;
      }
      return c;
    });
    batch.forEach((r, i) => r.status === 'kept' && (incumbent = configs[i]!));
    out.push(configs);
  }
  return out;
}

describe('TPE proposer: parallel batches', () => {
  it(
    'K proposals asked with the same history are all different (pending ' +
      'proposals count as evaluated: a constant liar), in the design and in the ' +
      'model phase',
    async () => {
      for (const seed of [1, 2, 3]) {
        const batches = await runBatches(4, 6, seed);
        expect(batches.flat()).toHaveLength(24);
        for (const batch of batches) expect(new Set(batch.map((c) => JSON.stringify(c))).size).toBe(batch.length);
        const all = batches.flat().map((c) => JSON.stringify(c));
        expect(new Set(all).size).toBe(all.length);
      }
    },
  );
  it(
    'proposals asked at once follow the order of asking, not the order their ' +
      'config reads finish: a batch is reproducible from the seed',
    async () => {
      const ctx = (iteration: number): ProposalContext => ({
        iteration,
        attempt: 0,
        history: [],
        baseline: 1,
        best: 1,
        direction: 'minimize',
        hints: [],
        signal: new AbortController().signal,
      });
      /** K proposals of one batch; `reverse` makes the later-asked proposal's config read finish first. */
      async function batch(reverse: boolean): Promise<string[]> {
        const releases: Array<() => void> = [];
        const written: string[] = [];
        const adapter: ConfigAdapter = {
          name: 'deferred',
          read: () => new Promise((resolve) => releases.push(() => resolve({ ...start }))),
          write: (config, context) => void (written[context.iteration - 1] = JSON.stringify(config)),
        };
        const proposer = createTpeProposer({ config: adapter, space, seed: 7 });
        const calls = [1, 2, 3].map((i) => proposer.propose(ctx(i)));
        // Release the reads that are waiting, newest first when reversed, until every call is done.
        let settled = false;
        const all = Promise.all(calls).then(() => (settled = true));
        while (!settled) {
          await new Promise((r) => setImmediate(r));
          const waiting = releases.splice(0);
          for (const release of reverse ? waiting.reverse() : waiting) release();
        }
        await all;
        return written;
      }
      const inOrder = await batch(false);
      expect(new Set(inOrder).size).toBe(3);
      expect(await batch(true)).toEqual(inOrder);
    },
  );
});
