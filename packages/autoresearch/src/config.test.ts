import { describe, expect, it } from 'vitest';
import { ConfigError } from '@loop/core';
import { resolvePassConfig } from './config.js';

describe('config.autoresearch bindings (seed 002)', () => {
  it('kpi_target defaults to 9.5 and internal_rounds to 2 (function mode), and each default taken is stated', () => {
    const c = resolvePassConfig('function', {});
    expect(c).toMatchObject({ kpiTarget: 9.5, internalRounds: 2 });
    expect(c.assumptions).toContain('config.autoresearch.kpi_target is absent: using the default 9.5');
    expect(c.assumptions).toContain('config.autoresearch.ar_function.internal_rounds is absent: using the default 2');
  });

  it(
    'the per-pass caps bind to ar_design / ar_function max_iterations and ' +
      'max_consecutive_reverts (AR1_MAX_ITERS ... AR2_INTERNAL_ROUNDS)',
    () => {
      const cfg = {
        kpi_target: 9,
        ar_design: { max_iterations: 4, max_consecutive_reverts: 2 },
        ar_function: { max_iterations: 6, max_consecutive_reverts: 3, internal_rounds: 5 },
      };
      expect(resolvePassConfig('design', cfg)).toMatchObject({
        kpiTarget: 9,
        maxIterations: 4,
        maxConsecutiveReverts: 2,
        internalRounds: 1,
        assumptions: [],
      });
      expect(resolvePassConfig('function', cfg)).toMatchObject({
        maxIterations: 6,
        maxConsecutiveReverts: 3,
        internalRounds: 5,
        assumptions: [],
      });
    },
  );

  it('internal_rounds under ar_design is rejected with a clear ConfigError: it belongs to ar_function only', () => {
    let error: unknown;
    try {
      resolvePassConfig('design', { ar_design: { max_iterations: 3, internal_rounds: 2 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]).toMatchObject({
      path: 'ar_design.internal_rounds',
      message: expect.stringMatching(/ar_function key only/),
    });
    expect(() => resolvePassConfig('function', { ar_design: { internal_rounds: 2 } })).toThrow(
      /ar_design\.internal_rounds/,
    );
  });

  it('acceptance mode binds ar_acceptance max_acceptance_rounds and pass_rate_target', () => {
    expect(
      resolvePassConfig('acceptance', { ar_acceptance: { max_acceptance_rounds: 2, pass_rate_target: 0.9 } }),
    ).toMatchObject({ maxAcceptanceRounds: 2, passRateTarget: 0.9 });
  });

  it('an invalid value names its field', () => {
    expect(() => resolvePassConfig('function', { kpi_target: 11 })).toThrow(/kpi_target/);
    expect(() => resolvePassConfig('function', { ar_function: { max_iterations: 0 } })).toThrow(
      /ar_function\.max_iterations/,
    );
  });
});
