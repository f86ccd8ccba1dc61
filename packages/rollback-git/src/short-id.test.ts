import { describe, expect, it } from 'vitest';
import { shortId } from './index.js';

describe('shortId', () => {
  it('keeps the first 7 characters, as results.tsv stores them', () => {
    expect(shortId('3f2a9c1d0e4b5a6978877665544332211000ffee')).toBe('3f2a9c1');
  });
});
