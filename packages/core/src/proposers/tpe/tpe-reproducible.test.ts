import { describe, expect, it } from 'vitest';
import { createLoop } from '../../engine/create-loop.js';
import { createFunctionHarness } from '../../harness/function-harness.js';
import { createMemoryArtifact, createMemoryRollback, type MemoryArtifact } from '../../artifacts/memory-artifact.js';
import { createMemoryResultsLog } from '../../contracts/results-log.js';
import { createMemoryWorkingCopies } from '../../artifacts/memory-working-copies.js';
import type { ProposalContext } from '../../contracts/proposer.js';
import { createSeededRandom } from '../../stats/random.js';
import { createValueScorer } from '../../scoring/regex-scorer.js';
import { maxIterations } from '../../contracts/stop-policy.js';
import type { WorkingCopyProvider } from '../../contracts/working-copy.js';
import { createMemoryConfigAdapter, type ConfigAdapter } from './config-adapter.js';
import type { TpeParameter } from './space.js';
import { createTpeProposer } from './tpe-proposer.js';

type Config = Record<string, unknown>;
/** A mixed space like the ML demo's: a log-scale float, an ordered integer list and a category. */
const space: Record<string, TpeParameter> = {
  lr: { min: 0.0001, max: 0.1, scale: 'log' },
  width: { values: [8, 16, 32, 64, 128] },
  optimizer: { values: ['sgd', 'adam', 'rmsprop'] },
};
const start: Config = { lr: 0.001, width: 16, optimizer: 'sgd' };
const loss = (c: Config) =>
  (Math.log10(c.lr as number) + 2) ** 2 +
  Math.abs(Math.log2(c.width as number) - 5) / 3 +
  (c.optimizer === 'adam' ? 0 : 0.4);

/**
 * An injected scheduler: every awaited step (a working copy being made, a candidate's run
 * finishing) waits in line, and the driver releases what is waiting in an order drawn from a
 * seeded shuffle (`fifo`: in the order they arrived). A slow machine, deterministically.
 */
function createScheduler(order: 'fifo' | number) {
  const waiting: Array<() => void> = [];
  const random = createSeededRandom(order === 'fifo' ? 0 : order);
  return {
    turn: () => new Promise<void>((resolve) => waiting.push(resolve)),
    release: () => {
      const now = waiting.splice(0);
      if (order !== 'fifo') {
        for (let i = now.length - 1; i > 0; i--) {
          const j = Math.floor(random.next() * (i + 1));
          [now[i], now[j]] = [now[j]!, now[i]!];
        }
      }
      for (const go of now) go();
    },
  };
}

/** The real engine, K = 3 candidates per batch in memory working copies, the TPE proposer; returns the rows. */
async function rowsOf(order: 'fifo' | number): Promise<unknown[][]> {
  const scheduler = createScheduler(order);
  const artifact = createMemoryArtifact<Config>(start);
  const results = createMemoryResultsLog();
  const copies = createMemoryWorkingCopies(artifact, (copy: MemoryArtifact<Config>, { k }) =>
    createFunctionHarness(`copy-${k}`, async () => {
      await scheduler.turn();
      return loss(copy.get());
    }),
  );
  const workingCopies: WorkingCopyProvider = {
    ...copies,
    create: async (iteration, k) => {
      await scheduler.turn();
      return copies.create(iteration, k);
    },
  };
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    results,
    proposer: createTpeProposer({ config: createMemoryConfigAdapter(artifact), space, seed: 3 }),
    harness: createFunctionHarness('main', () => loss(artifact.get())),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(12),
    parallel: { candidates: 3, workingCopies },
  });
  let done = false;
  const running = loop.run().finally(() => (done = true));
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve));
    scheduler.release();
  }
  await running;
  return results.rows.map((r) => [r.iteration, r.status, r.score, r.description]);
}

describe('TPE proposer: reproducible batches (issue 32 items 4 and 17)', () => {
  it(
    'two runs with one seed give the same rows whatever order the working copies are made and the runs finish in ' +
      '(a loaded machine)',
    async () => {
      const fifo = await rowsOf('fifo');
      expect(fifo).toHaveLength(13);
      expect(new Set(fifo.map((r) => r[3])).size).toBe(13);
      for (const shuffle of [1, 2, 3]) expect(await rowsOf(shuffle)).toEqual(fifo);
    },
  );

  it(
    'a proposal depends on the seed, the history and its iteration only: asked in any order, or alone by a fresh ' +
      'proposer after a resume, it is the same config',
    async () => {
      const signal = new AbortController().signal;
      const ctx = (iteration: number): ProposalContext => ({
        iteration,
        attempt: 0,
        history: [],
        baseline: 1,
        best: 1,
        direction: 'minimize',
        hints: [],
        signal,
      });
      /** Asks for `iterations` in that order, one at a time, on a fresh proposer; returns the configs by iteration. */
      async function ask(iterations: number[]): Promise<Record<number, string>> {
        const written: Record<number, string> = {};
        const adapter: ConfigAdapter = {
          name: 'record',
          read: () => ({ ...start }),
          write: (config, c) => void (written[c.iteration] = JSON.stringify(config)),
        };
        const proposer = createTpeProposer({ config: adapter, space, seed: 7 });
        for (const i of iterations) await proposer.propose(ctx(i));
        return written;
      }
      const inOrder = await ask([1, 2, 3, 4]);
      expect(new Set(Object.values(inOrder)).size).toBe(4);
      expect(await ask([4, 3, 2, 1])).toEqual(inOrder);
      expect(await ask([2, 4, 1, 3])).toEqual(inOrder);
      // A resumed coordinator asks only for the batch's later candidates: the same configs (the same job ids).
      expect((await ask([3]))[3]).toBe(inOrder[3]);
      expect((await ask([2, 4]))[4]).toBe(inOrder[4]);
    },
  );
});
