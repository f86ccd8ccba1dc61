import { describe, expect, it } from 'vitest';
import { decideRecommendedAction, type RoundEvaluation, type Scoreboard } from './index.js';
import { emptyScoreboard, recordRound } from './scoreboard.js';

const evaluation = (passing: string[], failing: string[], low: string[] = []): RoundEvaluation => ({
  tasks: [
    ...passing.map((id) => ({ id, passed: true })),
    ...failing.map((id) => ({ id, passed: false })),
    ...low.map((id) => ({ id, passed: false, priority: 'low' as const })),
  ],
});
const board = (failures: Record<string, number>, failing: string[]): Scoreboard => {
  let b = emptyScoreboard();
  const max = Math.max(0, ...Object.values(failures));
  for (let round = 1; round <= max; round += 1) {
    const attempts = Object.entries(failures)
      .filter(([, n]) => n >= round)
      .map(([target]) => ({ target, outcome: 'failed' as const }));
    b = recordRound(
      b,
      round,
      attempts,
      failing.map((id) => ({ id, passed: false })),
      'x',
    );
  }
  return b;
};

describe('seed 004 stop criteria', () => {
  it('seed 004: continue while more targeted work is justified', () => {
    const d = decideRecommendedAction({
      plan: { summary: '', targets: ['x'] },
      evaluation: evaluation(['a'], ['x']),
      scoreboard: board({ x: 2 }, ['x']),
      excluded: [],
    });
    expect(d).toMatchObject({ action: 'continue', park: [] });
  });

  it(
    'seed 004: stop_exhausted when the same targeted improvement failed 3+ ' + 'times, and only that target is parked',
    () => {
      const d = decideRecommendedAction({
        plan: { summary: '', targets: ['x', 'y'] },
        evaluation: evaluation(['a'], ['x', 'y']),
        scoreboard: board({ x: 3, y: 1 }, ['x', 'y']),
        excluded: [],
      });
      expect(d).toEqual({
        action: 'stop_exhausted',
        reason: 'the same targeted improvement failed 3+ times: x (3 failed attempts)',
        park: ['x'],
      });
    },
  );

  it('seed 004: the failed-attempts threshold is configurable (maxFailedAttempts)', () => {
    const d = decideRecommendedAction({
      plan: { summary: '', targets: ['x'] },
      evaluation: evaluation([], ['x']),
      scoreboard: board({ x: 2 }, ['x']),
      excluded: [],
      maxFailedAttempts: 2,
    });
    expect(d.action).toBe('stop_exhausted');
  });

  it(
    'seed 004: stop_success when all high/medium-priority items are fixed or ' +
      'consciously parked; low priority does not block',
    () => {
      const d = decideRecommendedAction({
        plan: { summary: '', targets: [] },
        evaluation: evaluation(['a'], ['parked'], ['nice-to-have']),
        scoreboard: emptyScoreboard(),
        excluded: ['parked'],
      });
      expect(d).toMatchObject({ action: 'stop_success', park: [] });
    },
  );

  it('seed 004: stop_exhausted when no actionable fixes remain, parking the still-failing tasks', () => {
    const d = decideRecommendedAction({
      plan: { summary: '', targets: ['parked'] },
      evaluation: evaluation(['a'], ['parked', 'z']),
      scoreboard: emptyScoreboard(),
      excluded: ['parked'],
    });
    expect(d).toEqual({
      action: 'stop_exhausted',
      reason: 'no actionable fixes remain; still failing: z',
      park: ['z'],
    });
  });

  it('seed 004: a target already in cannot_handle_group.txt never forces stop_exhausted again', () => {
    const d = decideRecommendedAction({
      plan: { summary: '', targets: ['y'] },
      evaluation: evaluation([], ['x', 'y']),
      scoreboard: board({ x: 3 }, ['x', 'y']),
      excluded: ['x'],
    });
    expect(d.action).toBe('continue');
  });
});
