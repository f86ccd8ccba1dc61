import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegexScorer, createValueScorer, extractMetric } from './regex-scorer.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-scorer-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const okRun = async (log: string) => {
  const logPath = join(dir, `${Math.abs(hash(log))}.log`);
  await writeFile(logPath, log);
  return { exitCode: 0, signal: null, timedOut: false, durationMs: 5, logPath };
};
function hash(s: string) {
  let h = 0;
  for (const c of s) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}
const scorer = createRegexScorer({ pattern: '^val_bpb:\\s*(\\S+)', direction: 'minimize' });

describe('regex scorer', () => {
  it('when the pattern matches several lines, the last match counts', async () => {
    expect(await scorer.score(await okRun('val_bpb: 2.0\nstep 100\nval_bpb: 1.5\n'))).toEqual({ ok: true, value: 1.5 });
  });

  it("seed 003's pattern without a group takes the number after the match", () => {
    expect(extractMetric('x\nval_bpb: 0.997900 (best)\n', /^val_bpb:/m)).toEqual({ token: '0.997900', value: 0.9979 });
  });

  it('matches only at line starts with ^ (each line on its own)', async () => {
    expect(await scorer.score(await okRun('note val_bpb: 0.1\nval_bpb: 0.9\n'))).toEqual({ ok: true, value: 0.9 });
  });

  it('no match is a crash with the log’s last 50 lines attached', async () => {
    const lines = Array.from({ length: 80 }, (_, i) => `line ${i}`).join('\n');
    const result = await scorer.score(await okRun(`${lines}\n`));
    expect(result).toMatchObject({ ok: false, reason: 'metric-not-found' });
    if (!result.ok) {
      expect(result.logTail?.split('\n')).toHaveLength(50);
      expect(result.logTail?.split('\n')[0]).toBe('line 30');
    }
  });

  it('NaN and infinity are crashes', async () => {
    for (const bad of ['nan', 'NaN', 'inf', '-inf', 'Infinity']) {
      expect(await scorer.score(await okRun(`val_bpb: ${bad}\n`))).toMatchObject({
        ok: false,
        reason: 'metric-not-finite',
      });
    }
  });

  it('a non-zero exit is a crash even when the metric was printed (unless told otherwise)', async () => {
    const run = { ...(await okRun('val_bpb: 1.0\n')), exitCode: 1 };
    expect(await scorer.score(run)).toMatchObject({ ok: false, reason: 'exit-code' });
    const lenient = createRegexScorer({
      pattern: '^val_bpb:\\s*(\\S+)',
      direction: 'minimize',
      requireZeroExit: false,
    });
    expect(await lenient.score(run)).toEqual({ ok: true, value: 1 });
  });

  it('an invalid pattern fails with CONFIG_INVALID naming the field', () => {
    expect(() => createRegexScorer({ pattern: '([', direction: 'minimize' })).toThrow(
      /pattern: pattern is not a valid regular expression/,
    );
    expect(() => createRegexScorer({ pattern: 'x', direction: 'lower' as never })).toThrow(/direction/);
  });

  it('numbers are decimal only: 0x10, 0b1, 0o7 and 1_000 are not numbers', async () => {
    for (const bad of ['0x10', '0b1', '0o7', '1_000']) {
      expect(await scorer.score(await okRun(`val_bpb: ${bad}\n`))).toMatchObject({
        ok: false,
        reason: 'metric-not-finite',
      });
      expect(extractMetric(`val_bpb: ${bad}\n`, /^val_bpb:/)?.token ?? '').toBe('');
    }
    expect(await scorer.score(await okRun('val_bpb: -1.5e-3\n'))).toEqual({ ok: true, value: -0.0015 });
    expect(extractMetric('val_bpb: .5 (best).\n', /^val_bpb:/)).toEqual({ token: '.5', value: 0.5 });
    expect(extractMetric('val_bpb: 2.5\r\n', /^val_bpb:\s*(\S+)$/)).toEqual({ token: '2.5', value: 2.5 }); // CRLF logs
  });

  it('the default pattern stays on its line: "val_bpb:" then "42" on the next line is metric-not-found', async () => {
    expect(await scorer.score(await okRun('val_bpb:\n42\n'))).toMatchObject({ ok: false, reason: 'metric-not-found' });
    const seed003 = createRegexScorer({ pattern: '^score:', direction: 'minimize' });
    expect(await seed003.score(await okRun('score:\n0 warnings\n'))).toMatchObject({
      ok: false,
      reason: 'metric-not-found',
    });
  });

  it("match: 'first' keeps the evaluator's line when a candidate prints its own after it (an exit trap)", async () => {
    const first = createRegexScorer({ pattern: '^val_bpb:\\s*(\\S+)', direction: 'minimize', match: 'first' });
    const log = 'val_bpb: 1.25\nval_bpb: 0\n';
    expect(await first.score(await okRun(log))).toEqual({ ok: true, value: 1.25 });
    expect(await scorer.score(await okRun(log))).toEqual({ ok: true, value: 0 }); // the default 'last' is forgeable
  });

  it(
    'a metric file is read instead of the log and deleted after the read, ' + 'so a stale value is never scored twice',
    async () => {
      const metricFile = join(dir, 'metric.txt');
      const fromFile = createRegexScorer({ pattern: '^val_bpb:\\s*(\\S+)', direction: 'minimize', metricFile });
      await writeFile(metricFile, 'val_bpb: 0.75\n');
      const run = await okRun('val_bpb: 0.0001\n'); // the candidate's forged log line does not count
      expect(await fromFile.score(run)).toEqual({ ok: true, value: 0.75 });
      expect(await fromFile.score(run)).toMatchObject({
        ok: false,
        reason: 'metric-not-found',
        message: expect.stringContaining('wrote no readable metric file'),
      });
    },
  );

  it('lines are cut at maxLineLength before matching', async () => {
    const short = createRegexScorer({ pattern: '^x+ v=(\\d+)', direction: 'minimize', maxLineLength: 10 });
    expect(await short.score(await okRun(`${'x'.repeat(20)} v=3\n`))).toMatchObject({
      ok: false,
      reason: 'metric-not-found',
    });
  });

  it('a catastrophic pattern (^(a+)+$) is refused when the scorer is built, naming the nested repeat', () => {
    expect(() => createRegexScorer({ pattern: '^(a+)+$', direction: 'minimize' })).toThrow(
      /pattern: pattern nests a repeat inside a repeat \(\(a\+\)\+\)/,
    );
    expect(() => createRegexScorer({ pattern: /^(a+)+$/, direction: 'minimize' })).toThrow(/nests a repeat/);
  });

  it('a pattern with two capture groups is refused', () => {
    expect(() => createRegexScorer({ pattern: '^(val)_bpb:\\s*(\\S+)', direction: 'minimize' })).toThrow(
      /pattern has 2 capture groups/,
    );
    expect(() => createRegexScorer({ pattern: '^(?:val)_bpb:\\s*(\\S+)', direction: 'minimize' })).not.toThrow();
  });

  it(
    'an exponential pattern the load check cannot see is stopped by the ' +
      'extraction time limit: a crash row, and the main thread stays free',
    async () => {
      const slow = createRegexScorer({ pattern: '^(a|a)+$', direction: 'minimize', extractTimeoutMs: 300 });
      let ticks = 0;
      const timer = setInterval(() => (ticks += 1), 20);
      const result = await slow.score(await okRun(`${'a'.repeat(40)}b\n`));
      clearInterval(timer);
      expect(result).toMatchObject({
        ok: false,
        reason: 'harness-error',
        message: expect.stringContaining('took over 300 ms and was stopped'),
      });
      // It would run for hours (2^40 paths); it ended at the 300 ms limit, and timers ran meanwhile, so a SIGINT
      // handler
      // would too.
      expect(ticks).toBeGreaterThan(0);
    },
  );

  it('the value scorer crashes on a missing or non-finite value', () => {
    const base = { exitCode: 0, signal: null, timedOut: false, durationMs: 1 };
    expect(createValueScorer('maximize').score(base)).toMatchObject({ ok: false, reason: 'metric-not-found' });
    expect(createValueScorer('maximize').score({ ...base, value: Infinity })).toMatchObject({
      ok: false,
      reason: 'metric-not-finite',
    });
    expect(createValueScorer('maximize').score({ ...base, value: 3 })).toEqual({ ok: true, value: 3 });
  });
});

describe('regex scorer: named metrics (issue 28)', () => {
  it(
    'one pattern per named metric: found values go in data.metrics, an ' + 'absent or non-numeric one is left out',
    async () => {
      const s = createRegexScorer({
        pattern: '^ops_per_s:',
        direction: 'maximize',
        metrics: { rss_mb: '^rss_mb:\\s*(\\S+)', secs: /^took (\d+)s/, absent: '^nope:', bad: '^bad:' },
      });
      const result = await s.score(await okRun('ops_per_s: 1200\nrss_mb: 80\nrss_mb: 84.5\ntook 3s\nbad: nan\n'));
      expect(result).toEqual({ ok: true, value: 1200, data: { metrics: { rss_mb: 84.5, secs: 3 } } });
    },
  );

  it("a metric pattern is checked like the objective's (two groups refused at construction)", () => {
    expect(() => createRegexScorer({ pattern: '^x:', direction: 'minimize', metrics: { m: '^(a)(b)' } })).toThrow(
      /metrics\.m.*2 capture groups/,
    );
  });
});
