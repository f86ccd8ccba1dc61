import { describe, expect, it } from 'vitest';
import { createContextProposer } from '@loop/internal-test-utils';
import { createFunctionHarness } from '../harness/function-harness.js';
import { createMemoryArtifact, createMemoryRollback } from '../artifacts/memory-artifact.js';
import { createMemoryWorkingCopies } from '../artifacts/memory-working-copies.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { createSeededRandom } from '../stats/random.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { createLoop } from './create-loop.js';

/** A skipDuplicates loop proposing `values[iteration - 1]`; `counted.runs` counts harness runs. */
function listLoop(
  artifact: ReturnType<typeof createMemoryArtifact<number>>,
  rollback: ReturnType<typeof createMemoryRollback<number>>,
  results: ReturnType<typeof createMemoryResultsLog>,
  values: readonly number[],
  iterations: number,
  counted: { runs: number },
) {
  return createLoop({
    artifact,
    rollback,
    results,
    harness: createFunctionHarness('v', () => (counted.runs++, artifact.get())),
    scorer: createValueScorer('maximize'),
    proposer: {
      name: 'list',
      propose: ({ iteration }) => (artifact.set(values[iteration - 1]!), { description: `v=${values[iteration - 1]}` }),
    },
    keep: { skipDuplicates: true },
    stop: maxIterations(iterations),
  });
}

describe('skipDuplicates: a tree already evaluated in this run is not evaluated again (seed 001, issue 32)', () => {
  it(
    'in place: a proposal equal to a discarded one (or to the baseline) is a ' +
      '"duplicate of iteration N" row, not run',
    async () => {
      const artifact = createMemoryArtifact(0);
      const results = createMemoryResultsLog();
      const counted = { runs: 0 };
      await listLoop(artifact, createMemoryRollback(artifact), results, [5, 3, 5, 0, 7], 5, counted).run();
      // 5 kept, 3 reverted, 5 again: the incumbent's own tree is "no change"; 0 is the baseline's tree.
      expect(results.rows.map((r) => r.description)).toEqual([
        'baseline',
        'v=5',
        'v=3',
        'v=5 (no change: not evaluated)',
        'v=0 (duplicate of iteration 0: not evaluated)',
        'v=7',
      ]);
      expect(counted.runs).toBe(1 + 3);
      const again = createMemoryArtifact(0);
      let plainRuns = 0;
      const plain = createLoop({
        artifact: again,
        rollback: createMemoryRollback(again),
        harness: createFunctionHarness('v', () => (plainRuns++, again.get())),
        scorer: createValueScorer('maximize'),
        proposer: {
          name: 'list',
          propose: ({ iteration }) => (again.set([5, 3, 3][iteration - 1]!), { description: 'v' }),
        },
        stop: maxIterations(3),
      });
      await plain.run();
      expect(plainRuns).toBe(4); // off by default (the core stays neutral): the second 3 is evaluated again
    },
  );

  it('after a resume, a tree evaluated by an earlier session is a duplicate (its record has data.tree)', async () => {
    const artifact = createMemoryArtifact(0);
    const results = createMemoryResultsLog();
    const rollback = createMemoryRollback(artifact);
    const counted = { runs: 0 };
    const session = (values: number[], iterations: number) =>
      listLoop(artifact, rollback, results, values, iterations, counted).run();
    await session([5, 3], 2);
    expect(typeof results.rows[2]!.data?.tree).toBe('string');
    // A new session on the same log and artifact (a resume): 3 was evaluated at iteration 2 before it,
    // 0 is the baseline's tree.
    await session([5, 3, 3, 0, 8], 5);
    expect(results.rows.slice(3).map((r) => r.description)).toEqual([
      'v=3 (duplicate of iteration 2: not evaluated)',
      'v=0 (duplicate of iteration 0: not evaluated)',
      'v=8',
    ]);
    expect(results.rows[3]!.note).toBe('duplicate of iteration 2: not evaluated'); // a host's result says so
    expect(counted.runs).toBe(3 + 1);
  });

  it('in a parallel batch: two copies with the same tree are evaluated once; the twin is a duplicate row', async () => {
    const artifact = createMemoryArtifact(0);
    let runs = 0;
    const results = createMemoryResultsLog();
    const loop = createLoop({
      artifact,
      rollback: createMemoryRollback(artifact),
      results,
      harness: createFunctionHarness('v', () => artifact.get()),
      scorer: createValueScorer('maximize'),
      proposer: createContextProposer<number>((v, { workingCopy }) => v + 1 + ((workingCopy?.k ?? 0) === 2 ? 1 : 0)),
      parallel: {
        candidates: 3,
        workingCopies: createMemoryWorkingCopies(artifact, (copy) =>
          createFunctionHarness('v', () => (runs++, copy.get())),
        ),
      },
      keep: { skipDuplicates: true },
      stop: maxIterations(3),
    });
    await loop.run();
    const batch = results.rows.slice(1);
    expect(batch.filter((r) => /duplicate of iteration \d: not evaluated/.test(r.description))).toHaveLength(1);
    expect(runs).toBe(2);
    expect(artifact.get()).toBe(2);
  });
});

describe(
  'a parallel batch calls its proposers in candidate order (issue 32: the ' +
    'same rows on a quiet and a loaded machine)',
  () => {
    it(
      'a proposer drawing from one shared random stream proposes the same K ' +
        'candidates whatever order the working copies are ready in',
      async () => {
        const rowsFor = async (readyOrder: number[]) => {
          const artifact = createMemoryArtifact(0);
          const random = createSeededRandom(7);
          const inner = createMemoryWorkingCopies(artifact, (copy) => createFunctionHarness('v', () => copy.get()));
          // Copy k is ready only after the copies listed before it in readyOrder (a loaded machine's order).
          const ready = new Map<number, () => void>();
          const gates = readyOrder.map((k) => new Promise<void>((resolve) => ready.set(k, resolve)));
          let made = 0;
          const workingCopies = {
            ...inner,
            create: async (iteration: number, k: number) => {
              const position = readyOrder.indexOf(k % readyOrder.length);
              if (position > 0) await gates[position - 1];
              const copy = await inner.create(iteration, k);
              ready.get(k % readyOrder.length)!();
              made += 1;
              return copy;
            },
          };
          const results = createMemoryResultsLog();
          const loop = createLoop({
            artifact,
            rollback: createMemoryRollback(artifact),
            results,
            harness: createFunctionHarness('v', () => artifact.get()),
            scorer: createValueScorer('maximize'),
            proposer: createContextProposer<number>((v) => v + Math.round(random.next() * 100)),
            parallel: { candidates: 3, workingCopies },
            stop: maxIterations(9),
          });
          await loop.run();
          expect(made).toBe(9);
          return results.rows.map((r) => [r.iteration, r.status, r.score]);
        };
        const inOrder = await rowsFor([0, 1, 2]);
        expect(await rowsFor([2, 1, 0])).toEqual(inOrder);
        expect(await rowsFor([1, 2, 0])).toEqual(inOrder);
      },
    );
  },
);
