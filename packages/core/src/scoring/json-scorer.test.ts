import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJsonScorer } from './json-scorer.js';

let dir: string;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'json-scorer-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const run = (log: string) => {
  const logPath = join(dir, 'run.log');
  writeFileSync(logPath, log);
  return { exitCode: 0, signal: null, timedOut: false, durationMs: 1, logPath };
};

describe('JSON scorer (issue 28: several metrics by path)', () => {
  it(
    'reads the last JSON line of the log: the objective at its path, each ' +
      'named metric at its own into data.metrics',
    async () => {
      const s = createJsonScorer({
        path: 'val.loss',
        direction: 'minimize',
        metrics: { rss_mb: 'mem.rss_mb', secs: 'time', absent: 'nope' },
      });
      const log = 'step 1\n{"val":{"loss":9}}\n{"val": {"loss": 0.41}, "mem": {"rss_mb": 212}, "time": "3.5"}\ndone\n';
      expect(await s.score(run(log))).toEqual({ ok: true, value: 0.41, data: { metrics: { rss_mb: 212, secs: 3.5 } } });
    },
  );

  it('no JSON line, no number at the path, or a failed run is a crash', async () => {
    const s = createJsonScorer({ path: 'loss', direction: 'minimize' });
    expect(await s.score(run('loss: 3\n'))).toMatchObject({
      ok: false,
      reason: 'metric-not-found',
      message: 'no line of the log is a JSON object',
    });
    expect(await s.score(run('{"other": 1}\n'))).toMatchObject({
      ok: false,
      reason: 'metric-not-found',
      message: 'the log has no number at loss',
    });
    expect(await s.score({ ...run('{"loss": 1}\n'), exitCode: 2 })).toMatchObject({ ok: false, reason: 'exit-code' });
  });

  it('a JSON file is read instead of the log and deleted after each read (never scored twice)', async () => {
    const file = join(dir, 'metrics.json');
    const s = createJsonScorer({ path: 'loss', direction: 'minimize', file, metrics: { rss_mb: 'rss_mb' } });
    writeFileSync(file, JSON.stringify({ loss: 2, rss_mb: 50 }));
    expect(await s.score(run('{"loss": 1}\n'))).toEqual({ ok: true, value: 2, data: { metrics: { rss_mb: 50 } } });
    expect(existsSync(file)).toBe(false);
    expect(await s.score(run('{"loss": 1}\n'))).toMatchObject({ ok: false, reason: 'metric-not-found' });
  });
});
