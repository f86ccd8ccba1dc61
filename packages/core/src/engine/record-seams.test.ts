import { describe, expect, it } from 'vitest';
import { createCounterProposer, createFakeHarness } from '@loop/internal-test-utils';
import type { Proposer } from '../contracts/proposer.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';
import { maxIterations } from '../contracts/stop-policy.js';
import { createLoop } from './create-loop.js';
import { base } from './test-fixtures/seams-base.js';

describe('the keep policy sees the candidate record', () => {
  it(
    "KeepInput carries the candidate data, each sample's metrics, the " +
      "incumbent's row data and the baseline's (issue 28 constraints)",
    async () => {
      const { artifact, rollback } = base();
      const memory = [100, 90, 300, 95, 96];
      let run = 0;
      const harness = {
        name: 'metrics',
        run: () => {
          const i = run++;
          return {
            exitCode: 0,
            signal: null,
            timedOut: false,
            durationMs: 1,
            value: 10 - i,
            data: { metrics: { memory_mb: memory[i] ?? 0 } },
          };
        },
      };
      const seen: import('../contracts/keep-policy.js').KeepInput[] = [];
      const keepPolicy = {
        name: 'spy',
        decide: async (input: import('../contracts/keep-policy.js').KeepInput) => {
          if (input.candidate === 8) await input.sample?.();
          seen.push({ ...input, candidateMetrics: [...(input.candidateMetrics ?? [])] });
          return { keep: input.candidate !== 8, reason: 'spy' };
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
      expect(seen.map((s) => s.candidateData?.metrics)).toEqual([
        { memory_mb: 90 },
        { memory_mb: 300 },
        { memory_mb: 96 },
      ]);
      expect(seen[1]?.candidateMetrics).toEqual([{ memory_mb: 300 }, { memory_mb: 95 }]);
      expect(seen.map((s) => s.baselineData?.metrics?.memory_mb)).toEqual([100, 100, 100]);
      // The incumbent is the last kept row (iteration 1), also after a reverted one.
      expect(seen.map((s) => s.incumbentData?.metrics?.memory_mb)).toEqual([100, 90, 90]);
    },
  );
});

describe("the keep decision's note", () => {
  it(
    "a keep policy's note becomes the row's note and is appended to its " + 'description, kept or reverted (issue 28)',
    async () => {
      const { artifact, rollback } = base();
      const results = createMemoryResultsLog();
      const keepPolicy = {
        name: 'noted',
        decide: (input: import('../contracts/keep-policy.js').KeepInput) => ({
          keep: input.candidate < 9.5,
          reason: 'r',
          note: `note ${input.candidate}`,
        }),
      };
      await createLoop({
        artifact,
        rollback,
        proposer: createCounterProposer(artifact),
        results,
        scorer: createValueScorer('minimize'),
        harness: createFakeHarness({ scores: [10, 9, 9.8] }),
        keep: { policy: keepPolicy },
        stop: maxIterations(2),
      }).run();
      expect(
        results.rows.slice(1).map((r) => [r.status, r.note, r.description.endsWith(` (note ${r.score})`)]),
      ).toEqual([
        ['kept', 'note 9', true],
        ['reverted', 'note 9.8', true],
      ]);
    },
  );
});

describe('a failed proposal keeps its record', () => {
  it("a proposer's LoopError with details.data (an agent call's cost) puts it in the crash row's data", async () => {
    const { artifact, rollback } = base();
    const results = createMemoryResultsLog();
    const { LoopError } = await import('../contracts/errors.js');
    const proposer: Proposer = {
      name: 'p',
      propose: () => {
        throw new LoopError('PROPOSER_FAILED', 'agent exited 2', {
          details: { data: { cost: { usd: 0.3, tokens: 900 } } },
        });
      },
    };
    await createLoop({
      artifact,
      rollback,
      proposer,
      scorer: createValueScorer('minimize'),
      harness: createFakeHarness({ scores: [10] }),
      results,
      stop: maxIterations(1),
    }).run();
    const rows = await results.read();
    expect(rows[1]).toMatchObject({ status: 'crash', data: { cost: { usd: 0.3, tokens: 900 } } });
  });
});
