import { describe, expect, it } from 'vitest';
import type { IntermediateReport, IterationRecord } from '../contracts/iteration-record.js';
import { valueAtStep, type PruneInput } from '../contracts/pruner.js';
import { incumbentCurvePruner, medianPruner, nonFinitePruner, patiencePruner } from './pruners.js';

const curve = (...values: number[]): IntermediateReport[] => values.map((value, i) => ({ step: (i + 1) * 100, value }));
const row = (iteration: number, reports: IntermediateReport[], pruned = false): IterationRecord => ({
  iteration,
  candidateId: '',
  score: reports.at(-1)?.value ?? null,
  status: iteration === 0 ? 'baseline' : 'reverted',
  description: '',
  data: { reports, ...(pruned ? { pruned: { step: 100, value: 1, reason: 'r', pruner: 'p' } } : {}) },
});
const input = (reports: IntermediateReport[], extra: Partial<PruneInput> = {}): PruneInput => {
  const last = reports.at(-1)!;
  return {
    iteration: 5,
    step: last.step,
    value: last.value,
    reports,
    direction: 'minimize',
    incumbent: undefined,
    history: [],
    ...extra,
  };
};

describe('valueAtStep', () => {
  it("is the curve's last report at or before the step, and undefined before its first report or past its end", () => {
    const c = [
      { step: 100, value: 3 },
      { step: 300, value: 2 },
    ];
    expect([
      valueAtStep(c, 50),
      valueAtStep(c, 100),
      valueAtStep(c, 250),
      valueAtStep(c, 300),
      valueAtStep(c, 301),
    ]).toEqual([undefined, 3, 3, 2, undefined]);
  });
});

describe('built-in pruners', () => {
  it("incumbentCurvePruner prunes only past the warm-up and only beyond the margin, in the loop's direction", () => {
    const p = incumbentCurvePruner({ margin: 0.1, warmupSteps: 200 });
    const incumbent = curve(4, 3, 2);
    expect(p.check(input(curve(9), { incumbent }))).toBeUndefined(); // warm-up
    expect(p.check(input(curve(9, 3.29), { incumbent }))).toBeUndefined(); // within 10%
    expect(p.check(input(curve(9, 3.31), { incumbent }))).toEqual({ reason: '3.31 vs incumbent 3' });
    expect(p.check(input(curve(9, 2.6), { incumbent, direction: 'maximize' }))).toEqual({
      reason: '2.6 vs incumbent 3',
    });
    expect(p.check(input(curve(9, 3.5)))).toBeUndefined(); // no incumbent curve
  });

  it('medianPruner compares with the median of earlier unpruned runs at the same step once minRuns reached it', () => {
    const p = medianPruner({ minRuns: 3 });
    const history = [row(0, curve(5, 4)), row(1, curve(6, 5)), row(2, curve(4, 3)), row(3, curve(1, 1), true)];
    expect(p.check(input(curve(5.1), { history }))).toEqual({ reason: '5.1 vs median 5 of 3 runs' });
    expect(p.check(input(curve(5), { history }))).toBeUndefined();
    expect(p.check(input(curve(9), { history: history.slice(0, 2) }))).toBeUndefined(); // fewer than minRuns
  });

  it('patiencePruner prunes a curve whose own best did not improve by minDelta in its last reports', () => {
    const p = patiencePruner({ patience: 2, minDelta: 0.1 });
    expect(p.check(input(curve(3, 2.95, 2.92)))).toEqual({ reason: 'no progress in 2 reports (best 3)' });
    expect(p.check(input(curve(3, 2.95, 2.8)))).toBeUndefined();
    expect(p.check(input(curve(3, 2.95)))).toBeUndefined(); // not enough reports yet
  });

  it('nonFinitePruner prunes on NaN and infinite values only', () => {
    const p = nonFinitePruner();
    expect(p.check(input(curve(Number.NaN)))).toEqual({ reason: 'value NaN' });
    expect(p.check(input(curve(Number.POSITIVE_INFINITY)))).toEqual({ reason: 'value Infinity' });
    expect(p.check(input(curve(1e30)))).toBeUndefined();
  });

  it('options out of range are refused with a RangeError naming them', () => {
    expect(() => incumbentCurvePruner({ margin: -1 })).toThrow(/margin/);
    expect(() => medianPruner({ minRuns: 0 })).toThrow(/minRuns/);
    expect(() => patiencePruner({ patience: 0 })).toThrow(/patience/);
  });
});
