import { describe, expect, it } from 'vitest';
import { createManualClock } from '@loop/internal-test-utils';
import { createFunctionHarness } from '../harness/function-harness.js';
import { createValueScorer } from '../scoring/regex-scorer.js';
import { measure } from './measure.js';

describe('measure: the one evaluation, for a state outside any candidate', () => {
  it(
    'scores a run, merges its record data, times it on the injected clock, ' +
      'and makes a crash data, not an exception',
    async () => {
      const clock = createManualClock(1000);
      let x = 4;
      const harness = createFunctionHarness('x', () => {
        clock.advance(25);
        if (x < 0) throw new Error('negative');
        return { value: x, data: { metrics: { latency_ms: 7 } } };
      });
      const signal = new AbortController().signal;
      const ok = await measure(harness, createValueScorer('minimize'), { iteration: 3, signal }, clock);
      expect(ok).toMatchObject({
        result: { ok: true, value: 4 },
        data: { metrics: { latency_ms: 7 } },
        durationMs: 25,
      });
      x = -1;
      const crash = await measure(harness, createValueScorer('minimize'), { iteration: 4, signal }, clock);
      expect(crash.result).toMatchObject({ ok: false });
      expect(crash.run.error).toBe('negative');
    },
  );
});
