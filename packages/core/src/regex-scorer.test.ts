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

  it('matches only at line starts with ^ (multiline)', async () => {
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
      expect(await scorer.score(await okRun(`val_bpb: ${bad}\n`))).toMatchObject({ ok: false, reason: 'metric-not-finite' });
    }
  });

  it('a non-zero exit is a crash even when the metric was printed (unless told otherwise)', async () => {
    const run = { ...(await okRun('val_bpb: 1.0\n')), exitCode: 1 };
    expect(await scorer.score(run)).toMatchObject({ ok: false, reason: 'exit-code' });
    const lenient = createRegexScorer({ pattern: '^val_bpb:\\s*(\\S+)', direction: 'minimize', requireZeroExit: false });
    expect(await lenient.score(run)).toEqual({ ok: true, value: 1 });
  });

  it('an invalid pattern fails with CONFIG_INVALID naming the field', () => {
    expect(() => createRegexScorer({ pattern: '([', direction: 'minimize' })).toThrow(/pattern: pattern is not a valid regular expression/);
    expect(() => createRegexScorer({ pattern: 'x', direction: 'lower' as never })).toThrow(/direction/);
  });

  it('the value scorer crashes on a missing or non-finite value', () => {
    const base = { exitCode: 0, signal: null, timedOut: false, durationMs: 1 };
    expect(createValueScorer('maximize').score(base)).toMatchObject({ ok: false, reason: 'metric-not-found' });
    expect(createValueScorer('maximize').score({ ...base, value: Infinity })).toMatchObject({ ok: false, reason: 'metric-not-finite' });
    expect(createValueScorer('maximize').score({ ...base, value: 3 })).toEqual({ ok: true, value: 3 });
  });
});
