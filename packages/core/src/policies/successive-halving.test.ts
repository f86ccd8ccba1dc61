import { describe, expect, it } from 'vitest';
import type { IntermediateReport, IterationRecord } from '../contracts/iteration-record.js';
import type { PruneInput } from '../contracts/pruner.js';
import { hyperbandPruner, successiveHalvingPruner } from './successive-halving.js';

const curve = (...values: number[]): IntermediateReport[] => values.map((value, i) => ({ step: (i + 1) * 100, value }));
const row = (iteration: number, reports: IntermediateReport[]): IterationRecord => ({
  iteration,
  candidateId: '',
  score: reports.at(-1)!.value,
  status: 'reverted',
  description: '',
  data: { reports },
});
const at = (reports: IntermediateReport[], history: IterationRecord[], iteration = 9): PruneInput => {
  const last = reports.at(-1)!;
  return {
    iteration,
    step: last.step,
    value: last.value,
    reports,
    direction: 'minimize',
    incumbent: undefined,
    history,
  };
};

describe('successive halving (ASHA) and Hyperband pruners (issue 27 item 3)', () => {
  it(
    'a run is promoted past a rung only when it is in the top 1/eta of the ' +
      'runs that reached it (at least the best)',
    () => {
      const p = successiveHalvingPruner({ minStep: 100, reductionFactor: 2 });
      // Rungs at 100, 200, 400, 800. Six earlier runs reached step 100 with these values.
      const history = [5, 6, 7, 8, 9, 10].map((v, i) => row(i, curve(v, v, v, v)));
      // With itself, 7 values at rung 100: the top floor(7/2) = 3 go on, the bar is the third best (7).
      expect(p.check(at(curve(6.5), history))).toBeUndefined();
      expect(p.check(at(curve(7.5), history))?.reason).toBe('7.5 not in the top 1/2 at step 100 (bar 7 of 7 runs)');
      // A rung is judged once, at the first report at or past it: step 300 judges nothing new.
      expect(p.check(at(curve(6.5, 6, 100), history))).toBeUndefined();
      // The first run at a rung always goes on; the second must beat it.
      expect(p.check(at(curve(9), []))).toBeUndefined();
      expect(p.check(at(curve(9), [row(1, curve(8))]))).toBeDefined();
    },
  );

  it('minEarlyStoppingRate moves the first rung to minStep x eta^s, and nothing is judged before it', () => {
    const p = successiveHalvingPruner({ minStep: 100, reductionFactor: 2, minEarlyStoppingRate: 1 });
    const history = [row(1, curve(1, 1, 1))];
    expect(p.check(at(curve(9), history))).toBeUndefined(); // step 100: before the first rung (200)
    expect(p.check(at(curve(9, 9), history))).toBeDefined();
  });

  it('hyperband runs iteration n in bracket n mod brackets and compares it only with its bracket', () => {
    const p = hyperbandPruner({ minStep: 100, maxStep: 400, reductionFactor: 2 }); // brackets: rungs from 100, 200, 400
    const history = [row(3, curve(1, 1, 1, 1)), row(4, curve(1, 1, 1, 1))];
    // Iteration 6 is in bracket 0 with iteration 3 (6 mod 3 = 0): judged at step 100 against it.
    expect(p.check(at(curve(5), history, 6))).toBeDefined();
    // Iteration 7 is in bracket 1 with iteration 4: nothing before step 200.
    expect(p.check(at(curve(5), history, 7))).toBeUndefined();
    expect(p.check(at(curve(5, 5), history, 7))).toBeDefined();
    // Iteration 8, bracket 2 (rung 400 = the full budget): no other run of its bracket yet.
    expect(p.check(at(curve(5, 5, 5, 5), history, 8))).toBeUndefined();
  });

  it('bad options are RangeErrors naming them', () => {
    expect(() => successiveHalvingPruner({ minStep: 0 })).toThrow(/minStep/);
    expect(() => successiveHalvingPruner({ minStep: 1, reductionFactor: 1 })).toThrow(/reductionFactor/);
    expect(() => hyperbandPruner({ minStep: 10, maxStep: 5 })).toThrow(/minStep < maxStep/);
  });
});
