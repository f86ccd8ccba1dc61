import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUN_FILES } from '@loop/auto-iterate';
import { formatLog } from './log.js';
import { withRowMetrics } from './row-metrics.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-row-metrics-'));
  mkdirSync(join(dir, '.loop'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const row = (iteration: number, score: number) => ({
  iteration,
  kind: 'discard' as const,
  status: 'discard',
  score,
  id: `c${iteration}`,
  description: `row ${iteration}`,
});

describe('withRowMetrics', () => {
  it("gives each row the agent's cost from its record; a cost that is not a finite amount is dropped", async () => {
    const records = [
      { iteration: 1, data: { cost: { usd: 0.0123, tokens: 1234 }, metrics: { rss_mb: 84.5 } } },
      { iteration: 2, data: { cost: { tokens: 90 } } },
      { iteration: 3, data: { cost: { usd: -1, tokens: 'many' } } },
    ];
    writeFileSync(join(dir, RUN_FILES.records), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const entries = await withRowMetrics(dir, [row(1, 3.1), row(2, 3.2), row(3, 3.3), row(4, 3.4)]);
    expect(entries.map((e) => e.cost)).toEqual([{ usd: 0.0123, tokens: 1234 }, { tokens: 90 }, undefined, undefined]);
    const lines = formatLog(entries).split('\n');
    expect(lines[0]).toMatch(/row 1 {2}\[rss_mb=84\.5\] {2}\[cost \$0\.0123, 1,234 tokens\]$/);
    expect(lines[1]).toMatch(/row 2 {2}\[cost 90 tokens\]$/);
    expect(lines[2]).toMatch(/row 3$/);
  });
});
