import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { IterationRecord, LoopEvent } from '@loop/core';
import { describe, expect, it } from 'vitest';
import {
  canShowLiveDisplay,
  countResultsRows,
  createPlainReporter,
  createTtyReporter,
  formatDuration,
  formatProgress,
  initialProgress,
  updateProgress,
} from './progress.js';

/** Builds an event; the fields the display ignores (samples, spread, ...) are left out. */
const ev = (e: Record<string, unknown>): LoopEvent => e as unknown as LoopEvent;
const record = (iteration: number, status: IterationRecord['status'], score: number | null): IterationRecord => ({
  iteration,
  candidateId: `c${iteration}abcdef`,
  score,
  status,
  description: `change ${iteration}`,
});

describe('progress display', () => {
  it('shows iteration N of M, elapsed time, time left in the current run and the best so far', () => {
    const s = initialProgress('val_bpc', 20, 300, 0);
    updateProgress(s, { type: 'iteration-started', iteration: 0, attempt: 0 }, 0);
    expect(formatProgress(s, 10_000)).toBe(
      'baseline  |  elapsed 10s  |  4m50s left in this run\nbest val_bpc -  |  keep 0  discard 0  crash 0',
    );
    updateProgress(s, ev({ type: 'baseline', record: record(0, 'baseline', 2.5), durationMs: 1000 }), 60_000);
    updateProgress(s, { type: 'iteration-started', iteration: 1, attempt: 0 }, 60_000);
    updateProgress(
      s,
      ev({
        type: 'kept',
        record: record(1, 'kept', 2.25),
        decision: { keep: true, reason: 'better' },
        previousBest: 2.5,
        durationMs: 1,
      }),
      120_000,
    );
    updateProgress(s, { type: 'iteration-started', iteration: 2, attempt: 0 }, 120_000);
    expect(formatProgress(s, 3_720_000 + 120_000)).toBe(
      'iteration 2 of 20  |  elapsed 1h04m  |  57m00s over budget\nbest val_bpc 2.25  |  keep 1  discard 0  crash 0',
    );
  });

  it('unlimited runs show no "of M"; a crash being repaired is not counted yet', () => {
    const s = initialProgress('score', 0, 60, 0);
    updateProgress(s, { type: 'resumed', iteration: 7, best: 1, bestId: 'abc' }, 0);
    updateProgress(s, { type: 'iteration-started', iteration: 8, attempt: 0 }, 0);
    updateProgress(
      s,
      ev({ type: 'crash', record: record(8, 'crash', null), logTail: '', willRepair: true, durationMs: 1 }),
      5000,
    );
    expect(formatProgress(s, 5000)).toMatch(
      /^iteration 8  \|  elapsed 5s  \|  55s left in this run\nbest score 1  \|  keep 0  discard 0  crash 0$/,
    );
  });

  it('after the last iteration the display says "iteration M of M (done)", never M+1 of M', () => {
    const s = initialProgress('score', 2, 60, 0);
    updateProgress(s, ev({ type: 'baseline', record: record(0, 'baseline', 5), durationMs: 1 }), 0);
    expect(formatProgress(s, 0)).toMatch(/^iteration 1 of 2  \|/);
    updateProgress(s, ev({ type: 'reverted', record: record(1, 'reverted', 6), durationMs: 1 }), 0);
    updateProgress(
      s,
      ev({
        type: 'kept',
        record: record(2, 'kept', 4),
        decision: { keep: true, reason: 'better' },
        previousBest: 5,
        durationMs: 1,
      }),
      0,
    );
    expect(formatProgress(s, 0)).toMatch(/^iteration 2 of 2 \(done\)  \|/);
    expect(formatProgress(s, 0)).not.toContain('iteration 3');
  });

  it(
    'a resumed run counts the rows the interrupted run wrote (results.tsv up ' +
      'to the resumed iteration) plus its own',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'loop-progress-'));
      try {
        const tsv = join(dir, 'results.tsv');
        writeFileSync(
          tsv,
          [
            'commit\tscore\tstatus\tdescription',
            'a000000\t5\tkeep\tbaseline',
            'b000000\t4\tkeep\tx',
            'c000000\tcrash\tcrash\ty',
            'd000000\t6\tdiscard\tz',
            'e000000\t3\tkeep\tw',
            '',
          ].join('\n'),
        );
        expect(countResultsRows(tsv, 4)).toEqual({ keep: 2, discard: 1, crash: 1 });
        expect(countResultsRows(tsv, 3)).toEqual({ keep: 1, discard: 1, crash: 1 });
        expect(countResultsRows(join(dir, 'missing.tsv'), 3)).toEqual({ keep: 0, discard: 0, crash: 0 });
        const s = initialProgress('score', 0, 60, 0);
        updateProgress(s, { type: 'resumed', iteration: 4, best: 3, bestId: 'e' }, 0, countResultsRows(tsv, 4));
        updateProgress(
          s,
          ev({ type: 'crash', record: record(5, 'crash', null), logTail: '', willRepair: false, durationMs: 1 }),
          0,
        );
        expect(formatProgress(s, 0)).toContain('keep 2  discard 1  crash 2');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it(
    'the live display of loop resume starts from the rows already written ' +
      "(countsBefore), then adds this session's",
    () => {
      let out = '';
      const stream = new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) });
      const r = createTtyReporter({
        stream,
        metricName: 'score',
        maxIterations: 8,
        timeBudgetS: 60,
        now: () => 0,
        refreshMs: 3_600_000,
        countsBefore: (iteration) => (iteration === 6 ? { keep: 3, discard: 1, crash: 2 } : undefined),
      });
      r.event({ type: 'resumed', iteration: 6, best: 2, bestId: 'abc' });
      r.event(
        ev({
          type: 'kept',
          record: record(7, 'kept', 1.5),
          decision: { keep: true, reason: 'better' },
          previousBest: 2,
          durationMs: 1,
        }),
      );
      r.event(ev({ type: 'reverted', record: record(8, 'reverted', 3), durationMs: 1 }));
      r.done();
      expect(out).toContain('keep 4  discard 2  crash 2');
      expect(out).toContain('iteration 8 of 8 (done)');
      expect(out).not.toContain('iteration 9');
    },
  );

  it('formatDuration: seconds, minutes, hours', () => {
    expect([formatDuration(0), formatDuration(83_000), formatDuration(7_260_000)]).toEqual(['0s', '1m23s', '2h01m']);
  });

  it('off a terminal: one plain line per iteration event, nothing for iteration-started', () => {
    let out = '';
    const stream = new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) });
    const r = createPlainReporter({ stream, metricName: 'score', maxIterations: 2, timeBudgetS: 1 });
    const events: LoopEvent[] = [
      { type: 'iteration-started', iteration: 0, attempt: 0 },
      ev({ type: 'baseline', record: record(0, 'baseline', 10), durationMs: 500 }),
      ev({ type: 'reverted', record: record(1, 'reverted', 12), durationMs: 1500 }),
    ];
    events.forEach(r.event);
    expect(out.split('\n').filter((l) => l.startsWith('iter '))).toEqual([
      expect.stringMatching(/^iter {3}0 {2}keep {5} +10\.000000 .*(baseline|change 0)/),
      expect.stringMatching(/^iter {3}1 {2}discard {2} +12\.000000 .*change 1 {2}\[1\.5 s\]$/),
    ]);
  });

  it(
    'off a terminal (nohup, a pipe), each finished iteration is followed by ' +
      'a progress line: iteration N of M, elapsed, time left, best, counts ' +
      '(issue 32)',
    () => {
      let out = '';
      let t = 0;
      const stream = new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) });
      const r = createPlainReporter({ stream, metricName: 'val_bpc', maxIterations: 4, timeBudgetS: 60, now: () => t });
      r.event({ type: 'iteration-started', iteration: 0, attempt: 0 });
      t = 30_000;
      r.event(ev({ type: 'baseline', record: record(0, 'baseline', 2.5), durationMs: 30_000 }));
      r.event({ type: 'iteration-started', iteration: 1, attempt: 0 });
      t = 50_000;
      // not finished: no line
      r.event(ev({ type: 'crash', record: record(1, 'crash', null), logTail: '', willRepair: true, durationMs: 1 }));
      t = 60_000;
      r.event(
        ev({
          type: 'kept',
          record: record(1, 'kept', 2.25),
          decision: { keep: true, reason: 'better' },
          previousBest: 2.5,
          durationMs: 30_000,
        }),
      );
      expect(out.split('\n').filter((l) => l.startsWith('progress'))).toEqual([
        'progress  iteration 0 of 4 | elapsed 30s | ~2m00s left | best val_bpc 2.5 | keep 0 discard 0 crash 0',
        'progress  iteration 1 of 4 | elapsed 1m00s | ~1m30s left | best val_bpc 2.25 | keep 1 discard 0 crash 0',
      ]);
    },
  );

  it(
    "a resumed run's progress line counts the earlier rows and takes the " + "time left from this session's rows only",
    () => {
      let out = '';
      let t = 0;
      const stream = new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) });
      const r = createPlainReporter({
        stream,
        metricName: 'score',
        maxIterations: 10,
        timeBudgetS: 60,
        now: () => t,
        countsBefore: () => ({ keep: 2, discard: 3, crash: 1 }),
      });
      r.event({ type: 'resumed', iteration: 6, best: 1, bestId: 'abc' });
      t = 20_000;
      r.event(ev({ type: 'reverted', record: record(7, 'reverted', 3), durationMs: 1 }));
      expect(out.trim().split('\n').at(-1)).toBe(
        'progress  iteration 7 of 10 | elapsed 20s | ~1m00s left | best score 1 | keep 2 discard 4 crash 1',
      );
    },
  );

  it(
    'a TTY of size 0 (columns 0, rows 0: some docker exec -t and CI ptys) ' +
      'gets the plain lines, not the live display that draws nothing there ' +
      '(issue 32)',
    () => {
      expect(canShowLiveDisplay({ isTTY: true, columns: 0, rows: 0 }, {})).toBe(false);
      expect(canShowLiveDisplay({ isTTY: true, columns: 120, rows: 0 }, {})).toBe(false);
      expect(canShowLiveDisplay({ isTTY: true, columns: 120, rows: 40 }, {})).toBe(true);
      expect(canShowLiveDisplay({ isTTY: true, columns: 120, rows: 40 }, { CI: 'true' })).toBe(false);
      expect(canShowLiveDisplay({ isTTY: false, columns: 120, rows: 40 }, {})).toBe(false);
    },
  );
});
