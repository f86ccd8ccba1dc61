import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractInWorker, extractionWorkersStarted } from './metric-worker.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-metric-worker-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const job = (path: string, pattern: RegExp, timeoutMs = 5000) => ({
  path,
  pattern,
  match: 'last' as const,
  maxLineLength: 10_000,
  timeoutMs,
});

describe('extraction worker pool', () => {
  it('one worker serves consecutive extractions (no ~30 ms start per iteration)', async () => {
    writeFileSync(join(dir, 'a.log'), 'score: 1\nscore: 2\n');
    const before = extractionWorkersStarted();
    for (let i = 0; i < 5; i += 1) {
      expect(await extractInWorker(job(join(dir, 'a.log'), /^score:\s*(\S+)/))).toEqual({
        kind: 'done',
        found: { token: '2', value: 2 },
      });
    }
    expect(extractionWorkersStarted() - before).toBeLessThanOrEqual(1);
  });

  it('an unreadable file fails that extraction only; the same worker serves the next one', async () => {
    writeFileSync(join(dir, 'a.log'), 'score: 3\n');
    await extractInWorker(job(join(dir, 'a.log'), /^score:\s*(\S+)/));
    const before = extractionWorkersStarted();
    const missing = await extractInWorker(job(join(dir, 'missing.log'), /^score:\s*(\S+)/));
    expect(missing.kind).toBe('failed');
    expect(await extractInWorker(job(join(dir, 'a.log'), /^score:\s*(\S+)/))).toEqual({
      kind: 'done',
      found: { token: '3', value: 3 },
    });
    expect(extractionWorkersStarted()).toBe(before);
  });

  it(
    'a timed-out worker is terminated and never reused: the next extraction ' +
      'gets a fresh worker and its own answer',
    async () => {
      writeFileSync(join(dir, 'slow.log'), `${'a'.repeat(40)}b\nscore: 4\n`);
      const before = extractionWorkersStarted();
      const slow = await extractInWorker(job(join(dir, 'slow.log'), /^(?:score:|(?:a|a)+$)/, 200));
      expect(slow).toEqual({ kind: 'timeout', timeoutMs: 200 });
      writeFileSync(join(dir, 'a.log'), 'score: 5\n');
      expect(await extractInWorker(job(join(dir, 'a.log'), /^score:\s*(\S+)/))).toEqual({
        kind: 'done',
        found: { token: '5', value: 5 },
      });
      expect(extractionWorkersStarted() - before).toBeGreaterThanOrEqual(1);
    },
  );

  it('extractions at once each get their own worker and their own answer', async () => {
    for (let i = 0; i < 4; i += 1) writeFileSync(join(dir, `${i}.log`), `score: ${i}\n`);
    const results = await Promise.all(
      [0, 1, 2, 3].map((i) => extractInWorker(job(join(dir, `${i}.log`), /^score:\s*(\S+)/))),
    );
    expect(results).toEqual([0, 1, 2, 3].map((i) => ({ kind: 'done', found: { token: String(i), value: i } })));
  });
});
