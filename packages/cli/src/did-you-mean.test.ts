import { describe, expect, it } from 'vitest';
import { closestMatch, editDistance } from './did-you-mean.js';

describe('did you mean', () => {
  it('editDistance counts single-character insertions, deletions and substitutions', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('runComand', 'runCommand')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('flaw', 'lawn')).toBe(2);
  });

  it(
    'editDistance counts a swap of two neighbouring characters as one edit ' +
      '(mxa -> max), so closestMatch prefers max over min',
    () => {
      expect(editDistance('mxa', 'max')).toBe(1);
      expect(editDistance('ab', 'ba')).toBe(1);
      expect(editDistance('ca', 'abc')).toBe(3);
      expect(closestMatch('mxa', ['min', 'max'])).toBe('max');
    },
  );

  it('closestMatch picks the nearest candidate, ignoring case, and none beyond max(2, length/3) edits', () => {
    expect(closestMatch('timebudgets', ['timeBudgetS', 'killTimeoutS'])).toBe('timeBudgetS');
    expect(closestMatch('maxIteration', ['maxIterations', 'maxRepairAttempts'])).toBe('maxIterations');
    expect(closestMatch('colour', ['color', 'colors'])).toBe('color');
    expect(closestMatch('xyz', ['targetFiles', 'runCommand'])).toBeUndefined();
  });
});
