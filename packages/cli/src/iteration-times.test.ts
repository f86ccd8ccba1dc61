import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IterationRecord, LoopEvent } from '@loop/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createIterationTimesWriter, ITERATION_TIMES_FILE, readIterationTimes } from './iteration-times.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const record = (
  iteration: number,
  status: IterationRecord['status'],
  score: number | null,
  dimensions?: Record<string, number>,
): IterationRecord => ({
  iteration,
  candidateId: 'abc1234',
  score,
  status,
  description: 'd',
  ...(dimensions ? { dimensions } : {}),
});

describe('the iteration timing sidecar (.loop/iterations.jsonl)', () => {
  it(
    "records each row's start (first attempt), wall duration, run time and " +
      'named metrics from the events, on the injected clock',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'loop-iterlog-'));
      dirs.push(dir);
      let t = Date.parse('2026-01-01T00:00:00.000Z');
      const log = createIterationTimesWriter(join(dir, ITERATION_TIMES_FILE), { now: () => t });
      const events: Array<[number, LoopEvent]> = [
        [0, { type: 'iteration-started', iteration: 0, attempt: 0 }],
        [
          1500,
          {
            type: 'baseline',
            record: record(0, 'baseline', 2),
            durationMs: 1400,
            samples: [2],
            spread: { n: 1, mean: 2, sd: 0, mad: 0 },
          } as unknown as LoopEvent,
        ],
        [0, { type: 'iteration-started', iteration: 1, attempt: 0 }],
        [2000, { type: 'iteration-started', iteration: 1, attempt: 1 }], // a repair attempt keeps the first start
        [
          3000,
          {
            type: 'kept',
            record: record(1, 'kept', 1, { accuracy: 0.9 }),
            decision: { keep: true, reason: 'better' },
            previousBest: 2,
            durationMs: 2500,
            samples: [1],
            seedOnly: false,
          } as unknown as LoopEvent,
        ],
      ];
      for (const [advance, e] of events) {
        t += advance;
        log.event(e);
      }
      const lines = await readIterationTimes(dir);
      expect(lines.get(0)).toEqual({
        iteration: 0,
        startedAt: '2026-01-01T00:00:00.000Z',
        durationS: 1.5,
        runS: 1.4,
        status: 'baseline',
        score: 2,
        metrics: {},
      });
      expect(lines.get(1)).toEqual({
        iteration: 1,
        startedAt: '2026-01-01T00:00:01.500Z',
        durationS: 5,
        runS: 2.5,
        status: 'kept',
        score: 1,
        metrics: { accuracy: 0.9 },
      });
      // A new baseline (a new run in this workspace) starts the file again.
      log.event({
        type: 'baseline',
        record: record(0, 'baseline', 3),
        durationMs: 10,
        samples: [3],
        spread: { n: 1, mean: 3, sd: 0, mad: 0 },
      } as unknown as LoopEvent);
      expect(readFileSync(join(dir, ITERATION_TIMES_FILE), 'utf8').trimEnd().split('\n')).toHaveLength(1);
    },
  );

  it('carries the candidate record (IterationRecord.data) and its metrics beside the dimensions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loop-iterlog-'));
    dirs.push(dir);
    const log = createIterationTimesWriter(join(dir, ITERATION_TIMES_FILE), { now: () => 0 });
    const data = { metrics: { rss_mb: 40 }, reports: [{ step: 100, value: 3.2 }], cost: { usd: 0.5, tokens: 900 } };
    const rec = { ...record(2, 'reverted', 3, { accuracy: 0.8 }), data };
    log.event({ type: 'reverted', record: rec, durationMs: 0, samples: [3], seedOnly: false } as unknown as LoopEvent);
    const line = (await readIterationTimes(dir)).get(2);
    expect(line?.metrics).toEqual({ accuracy: 0.8, rss_mb: 40 });
    expect(line?.data).toEqual(data);
  });

  it(
    'a crash that will be repaired is not a row: no line (its repaired row ' + 'comes later; an abandoned one never)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'loop-iterlog-'));
      dirs.push(dir);
      const log = createIterationTimesWriter(join(dir, ITERATION_TIMES_FILE), { now: () => 0 });
      log.event({
        type: 'crash',
        record: record(7, 'crash', null),
        logTail: '',
        willRepair: true,
        durationMs: 0,
      } as unknown as LoopEvent);
      expect((await readIterationTimes(dir)).size).toBe(0);
      log.event({
        type: 'crash',
        record: record(7, 'crash', null),
        logTail: '',
        willRepair: false,
        durationMs: 0,
      } as unknown as LoopEvent);
      expect([...(await readIterationTimes(dir)).keys()]).toEqual([7]);
    },
  );

  it('reads a torn last line as no timing for that row, and a missing file as none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loop-iterlog-'));
    dirs.push(dir);
    expect((await readIterationTimes(dir)).size).toBe(0);
    const log = createIterationTimesWriter(join(dir, ITERATION_TIMES_FILE), { now: () => 0 });
    log.event({
      type: 'reverted',
      record: record(4, 'reverted', 5),
      durationMs: 0,
      samples: [5],
      seedOnly: false,
    } as unknown as LoopEvent);
    const { appendFileSync } = await import('node:fs');
    appendFileSync(join(dir, ITERATION_TIMES_FILE), '{"iteration":5,"startedAt":"2026');
    expect([...(await readIterationTimes(dir)).keys()]).toEqual([4]);
  });
});
