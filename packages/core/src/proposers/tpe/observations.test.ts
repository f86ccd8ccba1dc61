import { describe, expect, it } from 'vitest';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import { rebuildObservations } from './observations.js';

const row = (
  iteration: number,
  status: IterationRecord['status'],
  score: number | null,
  description: string,
  pruned = false,
): IterationRecord => ({
  iteration,
  candidateId: '',
  score,
  status,
  description,
  ...(pruned ? { data: { pruned: { step: 200, value: score, reason: 'r', pruner: 'incumbent-curve' } } } : {}),
});

describe("the model-based proposer's observations of pruned runs (issue 27)", () => {
  it(
    'a pruned run is an observation ranked by its last report; one pruned on ' +
      'a non-finite report is avoided like a crash',
    () => {
      const history = [
        row(0, 'baseline', 3, 'baseline'),
        row(1, 'reverted', 4.2, 'lr 0.1 -> 0.5 (pruned at step 200 of 3000: 4.2 vs incumbent 3.3)', true),
        row(2, 'reverted', null, 'lr 0.1 -> 0.9 (pruned at step 100: value NaN)', true),
      ];
      const obs = rebuildObservations(history, { lr: 0.1 }, new Set(['lr']), 'minimize');
      expect(obs).toEqual([
        { iteration: 0, config: { lr: 0.1 }, loss: 3 },
        { iteration: 1, config: { lr: 0.5 }, loss: 4.2, prunedAt: 200 },
        { iteration: 2, config: { lr: 0.9 } },
      ]);
    },
  );
});

describe("the model-based proposer's estimate of a pruned run's final score (issue 27)", () => {
  const curve = (r: IterationRecord, reports: [number, number][]): IterationRecord => ({
    ...r,
    data: { ...r.data, reports: reports.map(([step, value]) => ({ step, value })) },
  });

  it("a pruned run's loss is its final score extrapolated from the curve of the incumbent before it", () => {
    const history = [
      curve(row(0, 'baseline', 3.4, 'baseline'), [[200, 4.0]]),
      row(1, 'reverted', 4.8, 'lr 0.1 -> 0.5 (pruned at step 200 of 3000: 4.8 vs incumbent 4.0)', true),
      curve(row(2, 'kept', 3.0, 'lr 0.1 -> 0.2'), [[200, 3.6]]),
      row(3, 'reverted', 3.96, 'lr 0.2 -> 0.9 (pruned at step 200 of 3000: 3.96 vs incumbent 3.6)', true),
    ];
    const finished = [
      { ...row(4, 'reverted', 4.32, 'lr 0.2 -> 0.7 (pruned at step 200 of 3000: 4.32 vs incumbent 3.6)', true) },
    ].map((r) => ({ ...r, data: { ...r.data, params: { lr: 0.7 } } }));
    const obs = rebuildObservations(history, { lr: 0.2 }, new Set(['lr']), 'minimize', {}, finished);
    // Row 1 against the baseline's curve (4.8 / 4.0 x 3.4), rows 3 and 4 against row 2's (x 3.0).
    expect(obs.map((o) => [o.iteration, o.estimatedFrom, o.prunedAt])).toEqual([
      [0, undefined, undefined],
      [1, 200, undefined],
      [2, undefined, undefined],
      [3, 200, undefined],
      [4, 200, undefined],
    ]);
    expect(obs.map((o) => o.loss)).toEqual([3.4, expect.closeTo(4.08, 10), 3.0, expect.closeTo(3.3, 10), 3.6]);
  });
});

describe("the model-based proposer's observations on the async schedule (issue 27)", () => {
  const withParams = (r: IterationRecord, params: Record<string, unknown>): IterationRecord => ({
    ...r,
    data: { ...r.data, params },
  });
  // Rows 2 and 3 were proposed from the baseline while row 1 ran; 1 was kept first, then 3.
  const history = [
    row(0, 'baseline', 3, 'baseline'),
    withParams(row(1, 'kept', 2.5, 'lr 0.1 -> 0.2'), { lr: 0.2, wd: 0 }),
    withParams(row(2, 'reverted', 2.9, 'wd 0 -> 0.5'), { lr: 0.1, wd: 0.5 }),
    withParams(row(3, 'kept', 2.4, 'wd 0 -> 0.1'), { lr: 0.1, wd: 0.1 }),
  ];
  const keys = new Set(['lr', 'wd']);

  it("a row with the proposer's params is placed at them, not at its changes applied to a newer incumbent", () => {
    const obs = rebuildObservations(history, { lr: 0.1, wd: 0.1 }, keys, 'minimize');
    expect(obs.map((o) => o.config)).toEqual([
      { lr: 0.1, wd: 0 },
      { lr: 0.2, wd: 0 },
      { lr: 0.1, wd: 0.5 }, // from the descriptions alone: { lr: 0.2, wd: 0.5 }, a point never run
      { lr: 0.1, wd: 0.1 },
    ]);
  });

  it('a finished run (row not written yet) is an observation at its params; one without params is left out', () => {
    const finished = [
      withParams(row(4, 'reverted', 3.6, 'lr 0.1 -> 0.05 (pruned at step 200 of 3000: 3.6 vs incumbent 3.1)', true), {
        lr: 0.05,
        wd: 0.1,
      }),
      row(5, 'kept', 2.2, 'lr 0.1 -> 0.3'),
    ];
    const obs = rebuildObservations(history, { lr: 0.1, wd: 0.1 }, keys, 'minimize', {}, finished);
    expect(obs.at(-1)).toEqual({ iteration: 4, config: { lr: 0.05, wd: 0.1 }, loss: 3.6, prunedAt: 200 });
    expect(obs).toHaveLength(5);
  });
});

describe("the model-based proposer's estimate against the curve the pruner compared (issue 27)", () => {
  it('a pruned row naming its compared incumbent (data.pruned.incumbent) is estimated from that curve', () => {
    const curve = (r: IterationRecord, step: number, value: number): IterationRecord => ({
      ...r,
      data: { ...r.data, reports: [{ step, value }] },
    });
    const pruned = (r: IterationRecord, incumbent: number): IterationRecord => ({
      ...r,
      data: { pruned: { step: 200, value: r.score, reason: 'r', pruner: 'incumbent-curve', incumbent } },
    });
    // Row 3 started while the baseline was the incumbent; row 2 was kept before row 3's row was written.
    const history = [
      curve(row(0, 'baseline', 3.4, 'baseline'), 200, 4.0),
      row(1, 'reverted', 3.5, 'lr 0.1 -> 0.3'),
      curve(row(2, 'kept', 3.0, 'lr 0.1 -> 0.2'), 200, 3.6),
      pruned(row(3, 'reverted', 4.4, 'lr 0.2 -> 0.9 (pruned at step 200 of 3000: 4.4 vs incumbent 4.0)'), 0),
    ];
    const obs = rebuildObservations(history, { lr: 0.2 }, new Set(['lr']), 'minimize');
    // 4.4 / 4.0 x 3.4 (the baseline's curve), not 4.4 / 3.6 x 3.0 (row 2's, the keep before the row).
    expect(obs.at(-1)).toMatchObject({ iteration: 3, loss: expect.closeTo(3.74, 10), estimatedFrom: 200 });
  });
});
