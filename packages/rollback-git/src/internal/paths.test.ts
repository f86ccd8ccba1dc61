import { describe, expect, it } from 'vitest';
import { PathSet } from './path-set.js';
import { isWithin, normalizeRelativePath, parentOf, worthWalking } from './paths.js';

describe('paths', () => {
  it('normalizeRelativePath strips ./, doubled and trailing slashes', () => {
    expect(normalizeRelativePath('./src//models/')).toBe('src/models');
    expect(normalizeRelativePath('.')).toBe('.');
    expect(normalizeRelativePath('./')).toBe('.');
    expect(normalizeRelativePath('a\\b')).toBe('a/b');
  });

  it('isWithin and worthWalking prune a walk to the bases', () => {
    expect(isWithin('src/a.py', 'src')).toBe(true);
    expect(isWithin('srcx/a.py', 'src')).toBe(false);
    expect(isWithin('anything', '.')).toBe(true);
    expect(worthWalking('src', ['src/models/a.py'])).toBe(true);
    expect(worthWalking('srcx', ['src/models/a.py'])).toBe(false);
    expect(parentOf('a/b/c')).toBe('a/b');
    expect(parentOf('a')).toBe('.');
  });

  it('PathSet answers membership and ancestors in constant time', () => {
    const set = new PathSet(['a/b/c.txt', 'd.txt']);
    expect(set.has('a/b/c.txt')).toBe(true);
    expect(set.has('a/b')).toBe(false);
    expect(set.worthWalking('a')).toBe(true);
    expect(set.worthWalking('a/b')).toBe(true);
    expect(set.worthWalking('e')).toBe(false);
    expect(set.size).toBe(2);
  });
});
