import { describe, expect, it } from 'vitest';
import { consecutiveReverts, countsAsRevert } from './statuses.js';

describe('consecutive-reverts counter (seed 002)', () => {
  it('reverted, reverted-redtest and crash each increment it', () => {
    expect(['reverted', 'reverted-redtest', 'crash'].every(countsAsRevert)).toBe(true);
    expect(consecutiveReverts(['baseline', 'reverted', 'reverted-redtest', 'crash'])).toBe(3);
  });
  it('only a kept iteration resets it to 0', () => {
    expect(consecutiveReverts(['baseline', 'reverted', 'crash', 'kept'])).toBe(0);
    expect(consecutiveReverts(['baseline', 'reverted', 'kept', 'crash'])).toBe(1);
  });
});
