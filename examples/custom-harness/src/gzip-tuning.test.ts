import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadCorpus, tuneGzip } from './gzip-tuning.js';

describe('custom harness example', () => {
  it('a ten-line custom harness drives the loop to a smaller compressed size than the baseline', async () => {
    const corpus = loadCorpus();
    const summary = await tuneGzip(corpus, 30);
    expect(summary.baseline).toBe(gzipSync(corpus, { level: 1, memLevel: 1, strategy: 0, windowBits: 9 }).length);
    expect(summary.best).toBeLessThan(summary.baseline);
    expect(summary.counts.kept).toBeGreaterThan(0);
    expect(summary.iterations).toBe(30);
  });

  it('every kept change strictly improves on the best before it', async () => {
    const summary = await tuneGzip(loadCorpus(), 30, 7);
    for (const k of summary.kept) expect(k.improvement).toBeGreaterThan(0);
  });
});
