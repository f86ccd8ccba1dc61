import { anyOf, maxIterations } from '@loop/core';
import { costBudget, plateau, repeatedError } from '@loop/core/policies';
import { describe, expect, it } from 'vitest';
import { collieStopState, type CollieStopState, type IterationFacts } from './collie-stop-state.js';
import {
  evaluateStopChecks,
  sc1IterationCap,
  sc2Threshold,
  sc3Convergence,
  sc4Budget,
  sc5StuckSteps,
} from './stop-checks.js';

type Facts = CollieStopState['collie'];
const it_ = (
  iter: number,
  scalar: number | null,
  delta: number | null,
  over: Partial<IterationFacts> = {},
): IterationFacts => ({ iter, scalar, delta, allGreen: false, errorSignature: null, filesChanged: 1, ...over });
const facts = (over: Partial<Facts>): Facts => ({
  iterations: [],
  baselineScalar: 10,
  tokensUsed: 0,
  maxTokens: null,
  maxIterations: 5,
  maxWallclockMin: null,
  successCriterion: { type: 'scalar_threshold', threshold: 100 },
  ...over,
});
const state = (over: Partial<Facts>, elapsedMs = 0) => collieStopState(facts(over), 1_000, 1_000 + elapsedMs);

describe('seed 000 Stage 6 stop checks SC1-SC5', () => {
  it('SC1: iter >= max_iterations stops as budget_exhausted', () => {
    expect(
      sc1IterationCap().check(state({ maxIterations: 2, iterations: [it_(1, 11, 1), it_(2, 13, 2)] }))?.reason,
    ).toBe('SC1');
    expect(
      sc1IterationCap().check(state({ maxIterations: 3, iterations: [it_(1, 11, 1), it_(2, 13, 2)] })),
    ).toBeUndefined();
    expect(evaluateStopChecks(state({ maxIterations: 1, iterations: [it_(1, 11, 1)] }))?.status).toBe(
      'budget_exhausted',
    );
  });

  it('SC2: scalar >= threshold (scalar_threshold) or all green (all_green) stops as converged', () => {
    expect(sc2Threshold().check(state({ iterations: [it_(1, 100, 90)] }))?.reason).toBe('SC2');
    expect(sc2Threshold().check(state({ iterations: [it_(1, 99, 89)] }))).toBeUndefined();
    expect(
      sc2Threshold().check(
        state({
          successCriterion: { type: 'all_green', threshold: null },
          iterations: [it_(1, null, null, { allGreen: true })],
        }),
      )?.reason,
    ).toBe('SC2');
    expect(evaluateStopChecks(state({ maxIterations: 1, iterations: [it_(1, 100, 90)] }))?.status).toBe('converged');
  });

  it('SC3: the last two iterations with |delta| <= 0.01 x |baseline| (continuous) stop as converged', () => {
    expect(
      sc3Convergence().check(state({ baselineScalar: 10.5, iterations: [it_(1, 10.6, 0.1), it_(2, 10.6, 0)] }))?.reason,
    ).toBe('SC3');
    expect(
      sc3Convergence().check(state({ baselineScalar: 10.5, iterations: [it_(1, 10.6, 0.1), it_(2, 10.8, 0.2)] })),
    ).toBeUndefined();
    // one iteration is not two
    expect(sc3Convergence().check(state({ baselineScalar: 10.5, iterations: [it_(1, 10.5, 0)] }))).toBeUndefined();
  });

  it('SC3: integer 1-5 scalars use epsilon 0 (any change is progress)', () => {
    expect(
      sc3Convergence().check(state({ baselineScalar: 3, iterations: [it_(1, 4, 1), it_(2, 4, 0), it_(3, 4, 0)] }))
        ?.reason,
    ).toBe('SC3');
    expect(
      sc3Convergence().check(state({ baselineScalar: 3, iterations: [it_(1, 4, 1), it_(2, 5, 1)] })),
    ).toBeUndefined();
  });

  it(
    'SC4: tokens_used >= max_tokens or elapsed >= max_wallclock_min stops as ' +
      'budget_exhausted; unlimited never fires',
    () => {
      expect(sc4Budget().check(state({ tokensUsed: 500, maxTokens: 500 }))?.reason).toBe('SC4');
      expect(sc4Budget().check(state({ maxWallclockMin: 10 }, 10 * 60_000))?.reason).toBe('SC4');
      expect(sc4Budget().check(state({ maxWallclockMin: 10 }, 10 * 60_000 - 1))).toBeUndefined();
      expect(sc4Budget().check(state({ tokensUsed: 1e9 }, 1e12))).toBeUndefined();
      expect(evaluateStopChecks(state({ tokensUsed: 1, maxTokens: 1 }))?.status).toBe('budget_exhausted');
    },
  );

  it('SC5: the same error three times or no file changes five times stops as escalated', () => {
    const err = (i: number) => it_(i, null, null, { errorSignature: 'TypeError: x is undefined' });
    expect(sc5StuckSteps().check(state({ iterations: [err(1), err(2), err(3)] }))?.reason).toBe('SC5');
    expect(sc5StuckSteps().check(state({ iterations: [err(1), it_(2, 1, 1), err(3)] }))).toBeUndefined();
    const idle = [1, 2, 3, 4, 5].map((i) => it_(i, 10 + i, 1, { filesChanged: 0 }));
    expect(sc5StuckSteps().check(state({ iterations: idle }))?.reason).toBe('SC5');
    expect(sc5StuckSteps().check(state({ iterations: idle.slice(1) }))).toBeUndefined();
    expect(evaluateStopChecks(state({ maxIterations: 99, iterations: [err(1), err(2), err(3)] }))?.status).toBe(
      'escalated',
    );
  });

  it(
    'SC1-SC5 are core StopPolicys: they compose with anyOf and core ' +
      'policies, and never fire on a state without collie facts',
    () => {
      const s = state({ maxIterations: 1, iterations: [it_(1, 11, 1)] });
      expect(anyOf(sc2Threshold(), sc1IterationCap()).check(s)?.reason).toBe('SC1');
      expect(anyOf(maxIterations(1)).check(s)?.reason).toBe('max-iterations');
      const { collie: _facts, ...plain } = s;
      for (const p of [sc1IterationCap(), sc2Threshold(), sc3Convergence(), sc4Budget(), sc5StuckSteps()])
        expect(p.check(plain)).toBeUndefined();
    },
  );

  it(
    'Stage 6 hybrid OR: reaching the threshold on the last allowed iteration ' +
      'is converged, not budget_exhausted (our ordering)',
    () => {
      expect(evaluateStopChecks(state({ maxIterations: 1, iterations: [it_(1, 150, 140)] }))).toMatchObject({
        status: 'converged',
        decision: { reason: 'SC2' },
      });
      expect(evaluateStopChecks(state({ maxIterations: 5, iterations: [it_(1, 11, 1)] }))).toBeUndefined();
    },
  );

  it(
    'collieStopState is a real LoopState built from the iterations ' +
      '(statuses, counts, consecutive counters, best trail, token cost), so ' +
      'core policies read what happened',
    () => {
      const s = state({
        tokensUsed: 1234,
        iterations: [
          it_(1, 12, 2),
          it_(2, 11, -1, { reverted: true }),
          it_(3, null, null, { errorSignature: 'E: N' }),
          it_(4, null, null, { errorSignature: 'E: N', filesChanged: 0 }),
        ],
      });
      expect(s.history.map((r) => r.status)).toEqual(['baseline', 'kept', 'reverted', 'crash', 'crash']);
      expect(s.history.at(-1)).toMatchObject({ error: 'E: N', changedFiles: [], gates: { all_green: false } });
      expect(s.counts).toEqual({ kept: 1, reverted: 1, rejected: 0, crash: 2, halted: 0 });
      expect([
        s.best,
        s.consecutiveNonImprovements,
        s.consecutiveCrashes,
        s.consecutiveSameError,
        s.consecutiveNoChange,
      ]).toEqual([12, 3, 2, 2, 1]);
      expect(s.bestTrail).toEqual([10, 12, 12, 12, 12]);
      expect(s.cost).toEqual({ tokens: 1234 });
      expect(plateau(3).check(s)?.reason).toBe('plateau');
      expect(repeatedError(2).check(s)?.reason).toBe('repeated-error');
      expect(costBudget({ maxTokens: 1000 }).check(s)?.reason).toBe('cost-budget');
    },
  );
});
