import { describe, expect, it } from 'vitest';
import type { IterationRecord } from '../../contracts/iteration-record.js';
import { prunedEstimate } from './pruned-estimate.js';

const incumbent = (score: number | null, reports: [number, number][]): IterationRecord => ({
  iteration: 3,
  candidateId: 'abc1234',
  score,
  status: 'kept',
  description: 'lr 0.1 -> 0.2',
  data: { reports: reports.map(([step, value]) => ({ step, value })) },
});

describe("a pruned run's final score, extrapolated from the incumbent's curve (issue 27)", () => {
  const curve = incumbent(3.0, [
    [300, 3.6],
    [600, 3.3],
    [900, 3.2],
  ]);

  it("scales the incumbent's final score by the run's ratio to the incumbent's curve at the step", () => {
    // 4.32 at step 300 against the incumbent's 3.6: 1.2x, so 1.2 x 3.0.
    expect(prunedEstimate({ step: 300, value: 4.32 }, curve, 'minimize')).toBeCloseTo(3.6, 10);
  });

  it("interpolates the incumbent's curve linearly between its reports", () => {
    // At step 450 the incumbent's curve is 3.45; 3.795 is 1.1x that.
    expect(prunedEstimate({ step: 450, value: 3.795 }, curve, 'minimize')).toBeCloseTo(3.3, 10);
  });

  it("is never better than the incumbent's score (the pruner judged the run no better)", () => {
    expect(prunedEstimate({ step: 600, value: 3.0 }, curve, 'minimize')).toBe(3.0);
    const accuracy = incumbent(0.8, [[100, 0.5]]);
    expect(prunedEstimate({ step: 100, value: 0.6 }, accuracy, 'maximize')).toBe(0.8);
    expect(prunedEstimate({ step: 100, value: 0.4 }, accuracy, 'maximize')).toBeCloseTo(0.64, 10);
  });

  it('takes the difference when a value is not positive (a ratio of signed values means nothing)', () => {
    const signed = incumbent(-1.0, [[100, -0.5]]);
    expect(prunedEstimate({ step: 100, value: 0.5 }, signed, 'minimize')).toBeCloseTo(0.0, 10);
  });

  it("is undefined without a finite value, an incumbent score or the incumbent's curve around the step", () => {
    expect(prunedEstimate({ step: 300, value: null }, curve, 'minimize')).toBeUndefined();
    expect(prunedEstimate({ step: 300, value: Infinity }, curve, 'minimize')).toBeUndefined();
    expect(prunedEstimate({ step: 300, value: 4 }, incumbent(null, [[300, 3.6]]), 'minimize')).toBeUndefined();
    expect(prunedEstimate({ step: 1200, value: 4 }, curve, 'minimize')).toBeUndefined();
    expect(prunedEstimate({ step: 200, value: 4 }, curve, 'minimize')).toBeUndefined();
    expect(prunedEstimate({ step: 300, value: 4 }, undefined, 'minimize')).toBeUndefined();
  });

  it('tolerates a hand-edited curve (unsorted, not a list, NaN steps), never a non-finite estimate', () => {
    const unsorted = incumbent(3.0, [
      [300, 3.6],
      [100, 4.0],
      [200, 3.8],
    ]);
    // Between 100 (4.0) and 200 (3.8), not between 100 and 300.
    expect(prunedEstimate({ step: 150, value: 4.29 }, unsorted, 'minimize')).toBeCloseTo(3.3, 10);
    const notAList = { ...curve, data: { reports: { step: 300, value: 3.6 } as never } };
    expect(prunedEstimate({ step: 300, value: 4 }, notAList, 'minimize')).toBeUndefined();
    expect(prunedEstimate({ step: Number.NaN, value: 4 }, curve, 'minimize')).toBeUndefined();
    expect(prunedEstimate({ step: 300, value: 1e308 }, curve, 'minimize')).toBeUndefined();
  });
});
