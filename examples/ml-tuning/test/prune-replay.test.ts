// The pruner replay behind prune-calibration.ts (issue 27): what the demo's pruner would stop on a
// run made without pruning, the bound on time to the run's best, and the proposer's estimate of
// each stopped run's final score against the score it reached.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { incumbentCurvePruner } from '@loop/core/policies';
import type { Pruner } from '@loop/core';
import { replayPruner } from '../bench/prune-replay.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A run of 3,000-step candidates: rows as `[score, status, training seconds, reports]`. */
function runDir(rows: [number, string, number, [number, number][]][]): string {
  const dir = mkdtempSync(join(tmpdir(), 'loop-replay-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.loop'));
  const tsv = rows.map(([score, status], i) => `c${i}\t${score}\t${status}\t${i === 0 ? 'baseline' : `row ${i}`}`);
  writeFileSync(join(dir, 'results.tsv'), ['commit\tscore\tstatus\tdescription', ...tsv].join('\n') + '\n');
  const records = rows.map(([, , seconds, reports], iteration) =>
    JSON.stringify({
      iteration,
      data: {
        metrics: { training_seconds: seconds },
        reports: reports.map(([step, value]) => ({ step, value })),
      },
    }),
  );
  writeFileSync(join(dir, '.loop', 'records.jsonl'), records.join('\n') + '\n');
  return dir;
}

describe('the pruner replay (prune-calibration.ts)', () => {
  it("gives each stopped run's estimated final score from the incumbent's curve, and its true score", async () => {
    const dir = runDir([
      [
        3.0,
        'keep',
        3,
        [
          [300, 3.6],
          [600, 3.3],
        ],
      ],
      // 4.32 at step 300 is 20% above the baseline's 3.6: stopped; estimated 1.2 x 3.0, reached 3.7.
      [
        3.7,
        'discard',
        10,
        [
          [300, 4.32],
          [600, 4.1],
        ],
      ],
      // 3.5 is below the baseline's curve: it runs on and is kept.
      [
        2.9,
        'keep',
        20,
        [
          [300, 3.5],
          [600, 3.2],
        ],
      ],
    ]);
    const r = await replayPruner(dir, incumbentCurvePruner({ margin: 0.03, warmupSteps: 300 }), 3000, 2);
    expect(r.estimates).toEqual([{ estimate: expect.closeTo(3.6, 10), final: 3.7 }]);
    expect([r.pruned, r.kept, r.wouldPrune, r.bestIteration]).toEqual([1, 1, 0, 2]);
    // One batch of both as it ran (its slowest, 20 s); packed, the stop (1 s of 10) and the keep: at least 20 s.
    expect(r.toBestBatchS).toBe(20);
    expect(r.toBestPackedS).toBe(20);
    expect(r.savedS).toBeCloseTo(9, 10);
  });

  it("shows a candidate's pruner the rows of earlier batches only, a stopped row's curve cut at its stop", async () => {
    const curve = (a: number, b: number, c: number): [number, number][] => [
      [300, a],
      [600, b],
      [900, c],
    ];
    const dir = runDir([
      [3.0, 'keep', 3, curve(3.6, 3.3, 3.1)],
      [2.9, 'keep', 9, curve(3.5, 3.2, 3.0)],
      [3.8, 'discard', 9, curve(4.0, 3.9, 3.85)],
      [3.7, 'discard', 9, curve(3.9, 3.8, 3.75)],
      [3.6, 'discard', 9, curve(3.8, 3.7, 3.65)],
    ]);
    const seen: Record<number, { iteration: number; steps: number[]; pruned: boolean }[]> = {};
    const pruner: Pruner = {
      name: 'test',
      check: ({ iteration, step, history }) => {
        seen[iteration] ??= history.map((row) => ({
          iteration: row.iteration,
          steps: (row.data?.reports ?? []).map((r) => r.step),
          pruned: row.data?.pruned !== undefined,
        }));
        return iteration === 2 && step === 600 ? { reason: 'stop' } : undefined;
      },
    };
    await replayPruner(dir, pruner, 3000, 2);
    const whole = [300, 600, 900];
    // Rows 1 and 2 run together: both see the baseline only; rows 3 and 4 see rows 0-2, row 2 cut at 600.
    expect(seen[1]).toEqual([{ iteration: 0, steps: whole, pruned: false }]);
    expect(seen[2]).toEqual(seen[1]);
    const afterFirstBatch = [
      { iteration: 0, steps: whole, pruned: false },
      { iteration: 1, steps: whole, pruned: false },
      { iteration: 2, steps: [300, 600], pruned: true },
    ];
    expect(seen[3]).toEqual(afterFirstBatch);
    expect(seen[4]).toEqual(afterFirstBatch);
  });
});
