import { describe, expect, it } from 'vitest';
import { AUTORESEARCH_STATUSES } from './statuses.js';
import { resultsStatusClass } from './results-tsv.js';

describe('resultsStatusClass (seed 002 statuses)', () => {
  it('every loop-row status has its class; only crash is a crash', () => {
    expect(Object.fromEntries(AUTORESEARCH_STATUSES.map((s) => [s, resultsStatusClass(s)]))).toEqual({
      baseline: 'baseline',
      kept: 'kept',
      reverted: 'reverted',
      'reverted-redtest': 'reverted',
      crash: 'crash',
      'restore-failed': 'halted',
      'rubric-tampered': 'halted',
      'harness-tampered': 'halted',
      'needs-human': 'halted',
    });
    expect(resultsStatusClass('state-write-failed')).toBe('halted');
  });

  it('AR-3 decisions are not crashes: done is kept, develop is a re-entry (reverted), escalate halts', () => {
    expect(['done', 'develop', 'escalate'].map(resultsStatusClass)).toEqual(['kept', 'reverted', 'halted']);
  });

  it('an unknown status is drawn loud (halted), a reverted-<why> one as a revert', () => {
    expect(resultsStatusClass('reverted-harness')).toBe('reverted');
    expect(resultsStatusClass('something-new')).toBe('halted');
  });
});
