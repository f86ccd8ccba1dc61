import { describe, expect, it } from 'vitest';
import type { IterationRecord } from '../contracts/iteration-record.js';
import type { LoopState } from '../contracts/loop-state.js';
import { convergence, costBudget, noFileChanges, repeatedError } from './stop-conditions.js';

const state = (over: Partial<LoopState> = {}): LoopState => ({
  iteration: 0,
  startedAt: 0,
  now: 0,
  direction: 'minimize',
  baseline: 10,
  best: 10,
  bestId: 'a',
  history: [],
  counts: { kept: 0, reverted: 0, rejected: 0, crash: 0, halted: 0 },
  consecutiveNonImprovements: 0,
  consecutiveCrashes: 0,
  iterationsThisRun: 0,
  signal: new AbortController().signal,
  ...over,
});
const row = (iteration: number, score: number | null): IterationRecord => ({
  iteration,
  candidateId: '',
  score,
  status: 'kept',
  description: '',
});

describe('seed stop conditions', () => {
  it('costBudget stops at the USD or token budget (equal counts) and never without a cost reading', () => {
    expect(costBudget({ maxUsd: 5 }).check(state({ cost: { usd: 4.99 } }))).toBeUndefined();
    expect(costBudget({ maxUsd: 5 }).check(state({ cost: { usd: 5 } }))?.reason).toBe('cost-budget');
    expect(costBudget({ maxTokens: 100 }).check(state({ cost: { tokens: 120 } }))?.message).toContain(
      '120 of a 100-token',
    );
    expect(costBudget({ maxUsd: 1 }).check(state())).toBeUndefined();
    expect(() => costBudget({})).toThrow(RangeError);
  });
  it(
    'costBudget with source history sums the rows data.cost, so a resumed ' + 'run counts what its earlier rows spent',
    () => {
      const rows = [
        row(0, 10),
        { ...row(1, 9), data: { cost: { usd: 0.3, tokens: 300 } } },
        { ...row(2, 9), status: 'reverted' as const, data: { cost: { usd: 0.3, tokens: 300 } } },
      ];
      expect(costBudget({ maxUsd: 0.6, source: 'history' }).check(state({ history: rows }))?.message).toBe(
        'spent $0.6000 of a $0.6000 budget; spent $0.6000 and 600 tokens on 2 ' +
          'proposals: $0.3000 and 300 tokens on 1 kept, $0.3000 and 300 tokens on 1 ' +
          'discarded',
      );
      expect(costBudget({ maxTokens: 601, source: 'history' }).check(state({ history: rows }))).toBeUndefined();
    },
  );
  it(
    'costBudget predictive stops before the proposal the mean cost per ' +
      'proposal says would go over the limit (ending on it is allowed)',
    () => {
      const rows = [row(0, 10), ...[1, 2, 3].map((i) => ({ ...row(i, 9), data: { cost: { usd: 0.25 } } }))];
      const p = costBudget({ maxUsd: 1, source: 'history', predictive: true });
      expect(p.check(state({ history: rows }))).toBeUndefined(); // 0.75 + 0.25 = 1: the fourth fits exactly
      const over = costBudget({ maxUsd: 0.9, source: 'history', predictive: true }).check(state({ history: rows }));
      expect(over?.reason).toBe('cost-budget');
      expect(over?.message).toContain('the next one (mean $0.2500) would go over it');
      expect(p.check(state({ history: [row(0, 10)] }))).toBeUndefined(); // no mean before the first proposal
      expect(
        costBudget({ maxTokens: 100, predictive: true }).check(state({ history: rows, cost: { tokens: 80 } }))?.message,
      ).toContain('the next one');
    },
  );
  it(
    'costBudget predictive counts the candidates still running ' +
      '(LoopState.pending, an async pool) before one more is started',
    () => {
      const rows = [row(0, 10), ...[1, 2].map((i) => ({ ...row(i, 9), data: { cost: { usd: 0.25 } } }))];
      const p = costBudget({ maxUsd: 1, source: 'history', predictive: true });
      expect(p.check(state({ history: rows }))).toBeUndefined(); // 0.5 spent, one more fits
      expect(p.check(state({ history: rows, pending: 1 }))).toBeUndefined(); // 0.5 + 0.25 running + 0.25 = 1
      expect(p.check(state({ history: rows, pending: 2 }))?.message).toContain(
        'the next one (mean $0.2500) with 2 more running would go over it',
      );
    },
  );

  it(
    'costBudget requireCost stops when an evaluated proposal carries no cost ' +
      '(the budget cannot be enforced), not for a crash',
    () => {
      const p = costBudget({ maxUsd: 1, source: 'history', predictive: true, requireCost: true });
      const paid = { ...row(1, 9), data: { cost: { usd: 0.1 } } };
      expect(p.check(state({ history: [row(0, 10), paid] }))).toBeUndefined();
      expect(
        p.check(state({ history: [row(0, 10), paid, { ...row(2, 8), status: 'crash' as const }] })),
      ).toBeUndefined();
      expect(p.check(state({ history: [row(0, 10), paid, row(2, 8)] }))?.message).toMatch(
        /^iteration 2's proposal reported no cost .* the run stops/,
      );
      expect(
        costBudget({ maxUsd: 1, source: 'history' }).check(state({ history: [row(0, 10), row(1, 9)] })),
      ).toBeUndefined();
    },
  );

  it('convergence on the best stops when it improved by no more than minDelta over the window', () => {
    const p = convergence({ window: 2, minDelta: 0.5 });
    expect(p.check(state({ iteration: 1, bestTrail: [10, 9] }))).toBeUndefined();
    expect(p.check(state({ iteration: 3, bestTrail: [10, 9, 8.8, 8.6] }))?.reason).toBe('convergence');
    expect(p.check(state({ iteration: 3, bestTrail: [10, 9, 9, 8] }))).toBeUndefined();
  });
  it('convergence on the score is seed 000 SC3: the last two scalars within epsilon', () => {
    const p = convergence({ window: 1, minDelta: 0.01, measure: 'score' });
    expect(p.check(state({ iteration: 2, history: [row(0, 1), row(1, 2), row(2, 2.005)] }))?.reason).toBe(
      'convergence',
    );
    expect(p.check(state({ iteration: 2, history: [row(0, 1), row(1, 2), row(2, 2.5)] }))).toBeUndefined();
  });
  it('repeatedError stops after n crashes in a row with the same error (seed 000 SC5: same error x3)', () => {
    expect(repeatedError(3).check(state({ consecutiveSameError: 2 }))).toBeUndefined();
    expect(
      repeatedError(3).check(
        state({ consecutiveSameError: 3, history: [{ ...row(1, null), status: 'crash', error: 'ENOENT' }] }),
      )?.message,
    ).toContain('ENOENT');
  });
  it('noFileChanges stops after n proposals in a row that changed nothing (seed 000 SC5: no file changes x5)', () => {
    expect(noFileChanges(5).check(state({ consecutiveNoChange: 4 }))).toBeUndefined();
    expect(noFileChanges(5).check(state({ consecutiveNoChange: 5 }))?.reason).toBe('no-file-changes');
  });
  it(
    'noFileChanges says why it stopped and quotes the last row, whose ' +
      'description says why the proposer changed nothing (issue 32)',
    () => {
      const last = {
        ...row(7, null),
        status: 'reverted' as const,
        description:
          'tune lr [agent exited 0 and changed no target; .loop/agent.log ends: ' +
          'sed: Read-only file system] (no change: not evaluated)',
      };
      expect(noFileChanges(3).check(state({ consecutiveNoChange: 3, history: [last] }))?.message).toBe(
        `3 iterations in a row changed no file: the proposer has nothing left to ` +
          `try, or cannot write its targets; the last one: ${last.description}`,
      );
    },
  );
});
