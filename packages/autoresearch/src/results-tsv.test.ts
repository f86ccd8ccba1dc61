import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatResultsRow, openResultsFile, parseResultsTsv, resultsHeader } from './results-tsv.js';

const AR1 =
  'iter\tcomposite\tdelta\tstructural_health\tloudness_of_failures\t' +
  'naming_clarity\tdocs_traceability\tstatus\tsnapshot\tutc';
const AR2 = 'iter\tcomposite\tdelta\tquality\tpass_rate\tcoverage\tstatus\tsnapshot\tutc';
const AR3 = 'iter\tpass_rate\twhy_alignment\tstatus\tsnapshot\tutc';

describe('results.tsv (seed 002)', () => {
  it('each pass prints its own exact header with the common columns in the seed order', () => {
    expect(resultsHeader('design').join('\t')).toBe(AR1);
    expect(resultsHeader('function').join('\t')).toBe(AR2);
    expect(resultsHeader('acceptance').join('\t')).toBe(AR3);
  });

  it('single-letter abbreviations (S/L/N/D) are never allowed as TSV column names', () => {
    expect(() => resultsHeader('design', ['S', 'L', 'N', 'D'])).toThrow(/chat line only/);
    expect(() => parseResultsTsv('iter\tcomposite\tdelta\tS\tstatus\tsnapshot\tutc\n')).toThrow(/single-letter/);
  });

  it(
    'one reader parses every pass right-anchored: first column iter, last ' +
      'three status snapshot utc, the rest keyed by the header (AR-1, AR-2 and ' +
      'AR-3 alike)',
    () => {
      const ar1 = parseResultsTsv(
        `${AR1}\n0\t7.00\t0.00\t7\t8\t6\t7\tbaseline\t000-baseline-20261130T040000Z\t2026-11-30T04:00:00.000Z\n`,
      );
      expect(ar1.rows[0]).toMatchObject({
        iter: '0',
        status: 'baseline',
        snapshot: '000-baseline-20261130T040000Z',
        columns: { naming_clarity: '6', composite: '7.00' },
      });
      const ar2 = parseResultsTsv(
        `${AR2}\n3\t8.00\t0.50\t8\t1\t91\tkept\t003-pre-x-a.ts-20261130T040000Z\t2026-11-30T04:03:00.000Z\n`,
      );
      expect(ar2.rows[0]).toMatchObject({ iter: '3', status: 'kept', columns: { coverage: '91', delta: '0.50' } });
      const ar3 = parseResultsTsv(`${AR3}\nar3-r1\t0.80\t9.00\tdevelop\t-\t2026-11-30T05:00:00.000Z\n`);
      expect(ar3.middle).toEqual(['pass_rate', 'why_alignment']);
      expect(ar3.rows[0]).toMatchObject({
        iter: 'ar3-r1',
        status: 'develop',
        snapshot: '-',
        columns: { why_alignment: '9.00' },
      });
      expect(ar3.rows[0]!.columns.composite).toBeUndefined();
    },
  );

  it('a row with trailing free text after utc is rejected as RESULTS_CORRUPT (no gap summary in the TSV row)', () => {
    expect(() =>
      parseResultsTsv(`${AR3}\nar3-r1\t0.80\t9.00\tdevelop\t-\t2026-11-30T05:00:00.000Z\t2 gaps remain\n`),
    ).toThrow(
      expect.objectContaining({
        code: 'RESULTS_CORRUPT',
        message: expect.stringMatching(/line 2.*no free text after utc/),
      }),
    );
  });

  it('a header that does not start with iter and end with status snapshot utc is RESULTS_CORRUPT', () => {
    expect(() => parseResultsTsv('commit\tscore\tstatus\tdescription\n')).toThrow(
      expect.objectContaining({ code: 'RESULTS_CORRUPT' }),
    );
  });

  it('free text is sanitised so a row is always one line with the right number of tabs', () => {
    const header = resultsHeader('acceptance');
    const line = formatResultsRow(header, {
      iter: 'ar3-r2',
      columns: { pass_rate: '1.00' },
      status: 'done',
      snapshot: 'a\tb\nc',
      utc: 'x',
    });
    expect(line.split('\t')).toEqual(['ar3-r2', '1.00', '-', 'done', 'a b c', 'x']);
  });

  it(
    'an absent or header-only results.tsv is initialised with the header; ' +
      'one with data rows is resumed, never re-baselined',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'loop-results-'));
      try {
        const path = join(dir, 'results.tsv');
        const header = resultsHeader('function');
        const fresh = await openResultsFile(path, header);
        expect(fresh.resumed).toBe(false);
        expect(readFileSync(path, 'utf8')).toBe(`${AR2}\n`);
        expect((await openResultsFile(path, header)).resumed).toBe(false); // header-only: init again
        await fresh.append({
          iter: '0',
          columns: { composite: '5.00', delta: '0.00' },
          status: 'baseline',
          snapshot: 's',
          utc: 'u',
        });
        const again = await openResultsFile(path, header);
        expect(again.resumed).toBe(true);
        expect(again.existing.map((r) => r.status)).toEqual(['baseline']);
        expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('a results.tsv with data rows under another pass header is RESULTS_CORRUPT, not overwritten', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loop-results-'));
    try {
      const path = join(dir, 'results.tsv');
      writeFileSync(path, `${AR1}\n0\t7\t0\t7\t7\t7\t7\tbaseline\ts\tu\n`);
      await expect(openResultsFile(path, resultsHeader('function'))).rejects.toMatchObject({ code: 'RESULTS_CORRUPT' });
      expect(readFileSync(path, 'utf8')).toMatch(/^iter\tcomposite\tdelta\tstructural_health/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
