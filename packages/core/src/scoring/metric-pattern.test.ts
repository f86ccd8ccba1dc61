import { describe, expect, it } from 'vitest';
import { captureGroups, checkMetricPattern, nestedQuantifier } from './metric-pattern.js';

describe('metric pattern checks at load', () => {
  it('refuses a repeat nested in a repeat (star height 2), naming it', () => {
    for (const [source, nested] of [
      ['^(a+)+$', '(a+)+'],
      ['^(\\d*)*x', '(\\d*)*'],
      ['^((ab)+c)*$', '((ab)+c)*'],
      ['^(?:x+y?)+$', '(?:x+y?)+'],
      ['^(a+){2,}$', '(a+){2,}'],
      ['^([a-z]+\\.)+$', '([a-z]+\\.)+'],
    ] as const) {
      expect(nestedQuantifier(source)).toBe(nested);
    }
  });

  it('accepts the usual metric patterns (star height 1, or a small bounded repeat of a group)', () => {
    for (const source of [
      '^val_bpb:',
      '^val_bpb:\\s*(\\S+)',
      '^score=([-+]?\\d+(?:\\.\\d+)?)',
      '(\\d+\\.){3}\\d+',
      '[(+)]+',
      '\\(a+\\)+',
      '^a{2}(b|c)+$',
    ]) {
      expect(nestedQuantifier(source)).toBeUndefined();
      expect(checkMetricPattern(source).ok).toBe(true);
    }
  });

  it("a syntax error carries the regex engine's own reason", () => {
    const check = checkMetricPattern('^val(');
    expect(check).toMatchObject({
      ok: false,
      reason: expect.stringMatching(
        /^pattern is not a valid regular expression: Invalid regular expression: .*Unterminated group/,
      ),
    });
  });

  it('counts capture groups, named ones included, and refuses more than one', () => {
    expect(captureGroups(/a/)).toBe(0);
    expect(captureGroups(/(a)(?:b)(?<c>c)/)).toBe(2);
    expect(checkMetricPattern('(a)(b)')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('2 capture groups'),
    });
  });
});
