import { describe, expect, it } from 'vitest';
import { createFunctionHarness } from './function-harness.js';

describe('function harness', () => {
  it("returns { value, metrics } as the run's data.metrics, merged over data.metrics (issue 28)", async () => {
    const h = createFunctionHarness('f', () => ({
      value: 2,
      metrics: { rss_mb: 10 },
      data: { metrics: { rss_mb: 1, secs: 3 }, params: { a: 1 } },
    }));
    const run = await h.run({ iteration: 0, signal: new AbortController().signal });
    expect(run).toMatchObject({ value: 2, data: { metrics: { rss_mb: 10, secs: 3 }, params: { a: 1 } } });
  });
});
