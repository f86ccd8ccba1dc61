import { describe, expect, it } from 'vitest';
import { formatIterationLine, formatSummary } from './format.js';

describe('output (seed 002: be quiet)', () => {
  it('one line per iteration: iter <N> | <status> | <composite> (Δ <delta>) | <desc>, on one line', () => {
    expect(formatIterationLine(4, 'kept', 8.25, 0.5, 'split\nparse()')).toBe(
      'iter 4 | kept | 8.25 (Δ 0.50) | split parse()',
    );
    expect(formatIterationLine(5, 'crash', null, null, 'x')).toBe('iter 5 | crash | - (Δ -) | x');
  });
  it(
    'the stop summary gives start and best composite, kept/reverted/crash ' +
      'counts, top kept changes by delta and the stop that fired',
    () => {
      const text = formatSummary({
        mode: 'design',
        startComposite: 6,
        bestComposite: 8,
        counts: { kept: 2, reverted: 3, revertedRedtest: 0, crash: 1 },
        topKept: [
          { iter: 3, delta: 1.5, description: 'a' },
          { iter: 1, delta: 0.5, description: 'b' },
        ],
        stopReason: 'plateau',
        stopMessage: '3 consecutive reverts',
        rubricSha256: 'ab'.repeat(32),
      });
      expect(text.split('\n')).toEqual([
        'autoresearch design stopped: plateau (3 consecutive reverts)',
        'composite 6.00 -> best 8.00',
        'kept 2 | reverted 3 | crash 1',
        'top kept: iter 3 +1.50 a; iter 1 +0.50 b',
        `rubric sha256 ${'ab'.repeat(32)}`,
        'validated — your call: nothing was committed',
      ]);
    },
  );
});
