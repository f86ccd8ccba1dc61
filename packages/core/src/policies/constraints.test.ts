import { describe, expect, it } from 'vitest';
import { isLoopError } from '../contracts/errors.js';
import {
  checkConstraintExpression,
  checkConstraints,
  constraintViolations,
  describeViolation,
  parseConstraint,
} from './constraints.js';

describe('constraint expressions (issue 28)', () => {
  it('absolute and baseline- or incumbent-relative bounds parse into reference * factor + offset', () => {
    expect(parseConstraint('latency_ms <= 200')).toMatchObject({
      metric: 'latency_ms',
      op: '<=',
      factor: 1,
      offset: 200,
      mode: 'blocking',
    });
    expect(parseConstraint('memory_mb <= baseline * 1.05')).toMatchObject({
      reference: 'baseline',
      factor: 1.05,
      offset: 0,
    });
    expect(parseConstraint('rss_mb<=incumbent*1.1')).toMatchObject({ reference: 'incumbent', factor: 1.1 });
    expect(parseConstraint('ops_per_s >= 0.9 * baseline')).toMatchObject({
      op: '>=',
      reference: 'baseline',
      factor: 0.9,
    });
    expect(parseConstraint('rss_mb <= baseline - 5', 'advisory')).toMatchObject({
      reference: 'baseline',
      factor: 1,
      offset: -5,
      mode: 'advisory',
    });
    expect(parseConstraint(' x <= incumbent ')).toMatchObject({
      reference: 'incumbent',
      factor: 1,
      offset: 0,
      text: 'x <= incumbent',
    });
  });

  it(
    'a bad expression is refused with a reason that says what to write ' +
      '(strict < and >, ==, an unknown reference, no operator)',
    () => {
      const reason = (t: string) => {
        const c = checkConstraintExpression(t);
        return c.ok ? '' : c.reason;
      };
      expect(reason('rss_mb < 100')).toMatch(/inclusive; write <= instead of </);
      expect(reason('rss_mb == 100')).toMatch(/== is not a bound/);
      expect(reason('rss_mb <= best * 2')).toMatch(/the bound "best \* 2" is not a number, baseline or incumbent/);
      expect(reason('rss_mb')).toMatch(/not an expression a loop can check/);
      expect(reason('rss_mb <= baseline * 1e999')).toMatch(/not finite/);
      try {
        parseConstraint('rss_mb <= lots');
        expect.unreachable();
      } catch (error) {
        expect(isLoopError(error, 'CONFIG_INVALID')).toBe(true);
      }
    },
  );
});

describe('constraintViolations: the Optuna-style feasibility function', () => {
  const cs = ['rss_mb <= baseline * 1.1', 'ops_per_s >= 100', 'latency_ms <= incumbent + 5'].map((t) =>
    parseConstraint(t),
  );

  it('one value per constraint, <= 0 when met, > 0 by how much it is broken (metric units)', () => {
    const v = constraintViolations(
      cs,
      { rss_mb: 120, ops_per_s: 90, latency_ms: 10 },
      { rss_mb: 100 },
      { latency_ms: 6 },
    );
    expect(v.map((x) => Number(x.toFixed(9)))).toEqual([10, 10, -1]);
  });

  it('a missing metric or reference is +Infinity (infeasible), never a pass', () => {
    expect(constraintViolations(cs, { ops_per_s: 100 }, { rss_mb: 100 }, {})).toEqual([Infinity, 0, Infinity]);
    expect(
      constraintViolations(cs, { rss_mb: 1, ops_per_s: Number.NaN, latency_ms: 1 }, undefined, { latency_ms: 1 })[0],
    ).toBe(Infinity);
  });

  it('reads a plain record, a candidate record (data) or a row alike', () => {
    const row = {
      iteration: 3,
      candidateId: 'c',
      score: 1,
      status: 'kept' as const,
      description: 'd',
      data: { metrics: { rss_mb: 105 } },
    };
    const one = [cs[0]!];
    expect(constraintViolations(one, row, { metrics: { rss_mb: 100 } })).toEqual(
      constraintViolations(one, { rss_mb: 105 }, { rss_mb: 100 }),
    );
    expect(constraintViolations(one, { metrics: { rss_mb: 105 } }, row)[0]).toBeLessThan(0);
  });

  it('describes a broken constraint with the value, the bound and by how much', () => {
    const [check] = checkConstraints([cs[0]!], { rss_mb: 130 }, { rss_mb: 100 });
    expect(describeViolation(check!)).toBe('rss_mb <= baseline * 1.1 broken: 130 > 110 (by 20, 18.1818%)');
    expect(describeViolation(checkConstraints([cs[0]!], {}, { rss_mb: 100 })[0]!)).toBe(
      'rss_mb <= baseline * 1.1: rss_mb missing',
    );
  });
});
