import { isLoopError } from '@loop/core';
import { describe, expect, it } from 'vitest';
import {
  parseRunSpec,
  planSourceOf,
  renderPlanFile,
  runSpecFromAnswers,
  stage0Questions,
  triggerTimeoutMin,
} from './run-spec.js';

const answers = { Q1: 'npm test', Q2: 'scalar_threshold 0.9', Q3: 'both', Q4: 'kind_aware', Q5: 'no' };

describe('seed 000 Stage 0 run spec', () => {
  it('Step 0.3: five questions Q1-Q5, Q1 carrying the discovery ranking, Q2-Q5 with the seed defaults', () => {
    const qs = stage0Questions('1. npm test');
    expect(qs.map((q) => q.id)).toEqual(['Q1', 'Q2', 'Q3', 'Q4', 'Q5']);
    expect(qs[0]?.text).toContain('1. npm test');
    expect(qs.slice(3).map((q) => q.default)).toEqual(['kind_aware', 'no']);
  });

  it(
    'Step 0.4: the plan file starts with plan-source / plan-kind / ' +
      'plan-executor and round-trips through parseRunSpec',
    () => {
      const spec = runSpecFromAnswers(answers, { task: 'speed up', scalarExtraction: '^score: (\\S+)' });
      const text = renderPlanFile('/p/plan.md', spec);
      expect(text.split('\n').slice(0, 3)).toEqual([
        '<!-- plan-source: /p/plan.md -->',
        '<!-- plan-kind: autoiter-stage0 -->',
        '<!-- plan-executor: collie:autoiter -->',
      ]);
      expect(planSourceOf(text)).toBe('/p/plan.md');
      expect(parseRunSpec(text, '/p/run-spec.md')).toEqual(spec);
      expect(spec).toMatchObject({
        primary_goal: 'both',
        success_criterion: { type: 'scalar_threshold', threshold: 0.9 },
        budget: { max_iterations: 5, max_tokens: 'unlimited', max_wallclock_min: 'unlimited' },
        skip_prepare: false,
        overfit_guards: ['G1', 'G2', 'G3', 'G4', 'G5', 'G6', 'G7', 'G8'],
      });
    },
  );

  it('Step 0.3: an answer outside the allowed values (primary_goal) is CONFIG_INVALID naming the field', () => {
    try {
      runSpecFromAnswers({ ...answers, Q3: 'speed' }, { task: 't', scalarExtraction: 'x' });
      expect.unreachable();
    } catch (error) {
      expect(isLoopError(error, 'CONFIG_INVALID')).toBe(true);
      expect((error as Error).message).toContain('primary_goal');
    }
  });

  it('a malformed run-spec.md is STATE_CORRUPT naming the path', () => {
    expect(() => parseRunSpec('task: x\n', '/r/run-spec.md')).toThrow(/\/r\/run-spec.md/);
  });

  it('Stage 2: timeout_min = min(max_wallclock_min / max_iterations, 30); unlimited gives 30', () => {
    const b = (w: number | 'unlimited', n: number) => ({
      budget: { max_iterations: n, max_tokens: 'unlimited' as const, max_wallclock_min: w },
    });
    expect(triggerTimeoutMin(b('unlimited', 5))).toBe(30);
    expect(triggerTimeoutMin(b(50, 5))).toBe(10);
    expect(triggerTimeoutMin(b(600, 5))).toBe(30);
  });
});
