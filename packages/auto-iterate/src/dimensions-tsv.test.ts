import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryResultsLog, type IterationRecord, type Scorer } from '@loop/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDimensionLines, withDimensionsTsv, withLogDimensions } from './dimensions-tsv.js';

let dir: string;
beforeEach(() => void (dir = mkdtempSync(join(tmpdir(), 'dims-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const row = (
  iteration: number,
  status: IterationRecord['status'],
  score: number | null,
  dimensions?: Record<string, number>,
): IterationRecord => ({
  iteration,
  candidateId: `c${iteration}abcdef0`,
  score,
  status,
  description: `r${iteration}`,
  ...(dimensions ? { dimensions } : {}),
});

describe('dimensions.tsv (seed 001: a per-dimension log beside results.tsv)', () => {
  it('dim.<name>: <n> lines are parsed, the last of each name wins, other lines are ignored', () => {
    expect(parseDimensionLines('dim.a: 1\nnoise dim.b: 9\ndim.b: 2.5\ndim.a: 3\nscore: 7\n')).toEqual({ a: 3, b: 2.5 });
  });

  it('a scorer wrapped with withLogDimensions carries the log dimensions; a crash stays a crash', async () => {
    const log = join(dir, 'run.log');
    writeFileSync(log, 'dim.x: 4\nscore: 4\n');
    const inner: Scorer = {
      name: 's',
      direction: 'maximize',
      score: (r) => (r.exitCode === 0 ? { ok: true, value: 4 } : { ok: false, reason: 'exit-code', message: 'exit 1' }),
    };
    const s = withLogDimensions(inner);
    const run = { exitCode: 0, signal: null, timedOut: false, durationMs: 1, logPath: log };
    expect(await s.score(run)).toEqual({ ok: true, value: 4, dimensions: { x: 4 } });
    expect(await s.score({ ...run, exitCode: 1 })).toMatchObject({ ok: false });
  });

  it(
    'rows go to results first, then dimensions.tsv with columns fixed by the ' +
      'first row; a crash row shows crash and -',
    async () => {
      const results = createMemoryResultsLog();
      const path = join(dir, 'sub', 'dimensions.tsv');
      const log = withDimensionsTsv(results, { path });
      await log.append(row(0, 'baseline', 5, { a: 5, b: 5 }));
      await log.append(row(1, 'kept', 6, { a: 7, b: 5 }));
      await log.append(row(2, 'crash', null));
      await log.append(row(3, 'reverted', 4, { b: 3, c: 1 }));
      expect(results.rows).toHaveLength(4);
      expect(readFileSync(path, 'utf8')).toBe(
        'commit\tscore\tstatus\ta\tb\nc0abcde\t5\tkeep\t5\t5\nc1abcde\t6\tkeep\t' +
          '7\t5\nc2abcde\tcrash\tcrash\t-\t-\nc3abcde\t4\tdiscard\t-\t' +
          '3\n',
      );
      // a resumed run keeps the columns of the file it finds
      await withDimensionsTsv(results, { path }).append(row(4, 'kept', 8, { b: 9, a: 1 }));
      expect(readFileSync(path, 'utf8').trim().split('\n').at(-1)).toBe('c4abcde\t8\tkeep\t1\t9');
    },
  );
});
