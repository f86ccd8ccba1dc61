import { describe, expect, it } from 'vitest';
import { isLoopError } from '../contracts/errors.js';
import { compileIntermediatePattern } from './intermediate-pattern.js';

describe('intermediate report patterns', () => {
  it('reads the step from the first group and the value from the second, nan and inf included', () => {
    const m = compileIntermediatePattern('^step (\\d+) .*val_bpc ([\\w.+-]+)', 'command-harness');
    expect(m('step 800 | loss 3.1 | val_bpc 3.41')).toEqual({ step: 800, value: 3.41 });
    expect(m('step 900 | val_bpc nan')).toEqual({ step: 900, value: Number.NaN });
    expect(m('step 900 | val_bpc -inf')).toEqual({ step: 900, value: Number.NEGATIVE_INFINITY });
    expect(m('step 900 | val_bpc oops')).toBeUndefined();
    expect(m('epoch 1 val_bpc 3')).toBeUndefined();
  });

  it('named groups step and value win over the order', () => {
    const m = compileIntermediatePattern('v=(?<value>[\\d.]+) at (?<step>\\d+)', 'command-harness');
    expect(m('v=2.5 at 40')).toEqual({ step: 40, value: 2.5 });
  });

  it(
    'a pattern that does not compile or has fewer than two groups is a ' + 'CONFIG_INVALID naming intermediate.pattern',
    () => {
      for (const bad of ['step (\\d+', 'step (\\d+) only']) {
        try {
          compileIntermediatePattern(bad, 'command-harness');
          expect.unreachable();
        } catch (error) {
          expect(isLoopError(error, 'CONFIG_INVALID')).toBe(true);
          expect((error as Error).message).toContain('intermediate.pattern');
        }
      }
    },
  );
});
