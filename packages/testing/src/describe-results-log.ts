import { describe, expect, it } from 'vitest';
import type { IterationRecord, MaybePromise, ResultsLog } from '@loop/core';

/**
 * What an implementation gives the results-log conformance suite: fresh, empty storage and a way
 * to open a log over it.
 */
export interface ResultsLogFixture {
  /**
   * Opens a log over this fixture's storage. Called again, it opens a second log over the SAME
   * storage, as a resumed run does (a file-backed log reads the file anew); a log kept in memory
   * returns the same instance.
   */
  readonly open: () => MaybePromise<ResultsLog>;
  /**
   * What the log's format keeps of a row: the record `read` gives back for `written` (a TSV log
   * drops `data` and `note`, shortens `candidateId`, maps `halted` onto a discard).
   * @default the record itself (the log keeps every field)
   */
  readonly kept?: (written: IterationRecord) => IterationRecord;
  /**
   * The suite's row as this log's engine would hand it over, when the format ties fields together
   * (autoresearch AR-3: the score is the `pass_rate` dimension). The suite appends `asWritten(row)`
   * and expects `kept(asWritten(row))` back. @default the row itself
   */
  readonly asWritten?: (row: IterationRecord) => IterationRecord;
  /**
   * True for a log that does not store the appended baseline row and makes row 0 up once a later
   * row exists (autoresearch AR-3: seed 002's rounds have no baseline row), so a log reopened
   * right after the baseline's append reads no rows. @default false
   */
  readonly unstoredBaseline?: boolean;
  /**
   * Row 0 of a log that derives its baseline instead of storing it (collie: state.json's
   * `baseline_scalar`). The suite then appends from iteration 1 and expects this row first.
   * @default none: the baseline is appended like any other row
   */
  readonly derivedBaseline?: IterationRecord;
  /**
   * Makes a stored row before the last unreadable (writes garbage into the file). The suite then
   * expects opening or reading the log to throw `LoopError` `RESULTS_CORRUPT`. Omit it for a log
   * without storage of its own.
   */
  readonly corrupt?: () => MaybePromise<void>;
  /** Removes temp dirs. */
  readonly cleanup?: () => MaybePromise<void>;
}

const id = (c: string) => c.repeat(40);

/**
 * The rows the suite writes, one of each status class, baseline first: what an engine run of five
 * iterations appends. A TSV log must represent every one of them.
 */
const SAMPLE_ROWS: readonly IterationRecord[] = [
  { iteration: 0, candidateId: id('a'), score: 10, status: 'baseline', description: 'baseline' },
  {
    iteration: 1,
    candidateId: id('b'),
    score: 9.5,
    status: 'kept',
    description: 'lower the learning rate',
    data: { metrics: { latency_ms: 12 } },
  },
  {
    iteration: 2,
    candidateId: id('c'),
    score: 9.75,
    status: 'reverted',
    description: 'raise the batch size',
    note: 'not better than 9.5',
  },
  {
    iteration: 3,
    candidateId: id('d'),
    score: null,
    status: 'crash',
    description: 'remove the warmup',
    error: 'exit code 1',
  },
  { iteration: 4, candidateId: '', score: null, status: 'rejected', description: 'edit the harness' },
  { iteration: 5, candidateId: id('e'), score: 1 / 3, status: 'kept', description: 'a score at full precision' },
];

/** What a restore that failed turns the last row into (the engine's `amendLast`, seed 002). */
const amended = (row: IterationRecord): IterationRecord => ({
  ...row,
  status: 'halted',
  label: 'restore-failed',
  note: 'the revert did not verify',
});

/**
 * The results-log conformance suite every `ResultsLog` runs (core's memory log, the TSV logs of
 * auto-iterate and autoresearch, collie's JSON rows): the rules of the contract as named tests.
 * Rules on optional members (`amendLast`) and on storage (`corrupt`) run only when there is one.
 *
 * @example
 * describeResultsLog('results-tsv', async () => {
 *   const dir = await mkdtemp(join(tmpdir(), 'log-'));
 *   const path = join(dir, 'results.tsv');
 *   return { open: () => createResultsTsv({ path }), kept: tsvKept, cleanup: () => rm(dir, { recursive: true }) };
 * });
 */
export function describeResultsLog(name: string, makeFixture: () => Promise<ResultsLogFixture>): void {
  const withFixture = (test: (f: ResultsLogFixture, skip: (note: string) => never) => Promise<void>) => {
    return async (context: { skip: (note?: string) => never }) => {
      const f = await makeFixture();
      try {
        await test(f, (note) => context.skip(note));
      } finally {
        await f.cleanup?.();
      }
    };
  };
  const shaped = (f: ResultsLogFixture, rows: readonly IterationRecord[]) =>
    f.asWritten ? rows.map(f.asWritten) : rows;
  const written = (f: ResultsLogFixture) => shaped(f, f.derivedBaseline ? SAMPLE_ROWS.slice(1) : SAMPLE_ROWS);
  const expected = (f: ResultsLogFixture, rows: readonly IterationRecord[]) => [
    ...(f.derivedBaseline ? [f.derivedBaseline] : []),
    ...rows.map((r) => (f.kept ? f.kept(r) : r)),
  ];
  const appendAll = async (log: ResultsLog, rows: readonly IterationRecord[]) => {
    for (const row of rows) await log.append(row);
  };
  const reopened = async (f: ResultsLogFixture) => (await f.open()).read();

  describe(`results log conformance: ${name}`, () => {
    it(
      'a log with nothing appended (no file yet) reads an empty list, or only its derived baseline',
      withFixture(async (f) => {
        expect(await (await f.open()).read()).toEqual(f.derivedBaseline ? [f.derivedBaseline] : []);
      }),
    );

    it(
      'rows read back in the order they were appended, baseline first',
      withFixture(async (f) => {
        const log = await f.open();
        await appendAll(log, written(f));
        const rows = await log.read();
        expect(rows.map((r) => r.status)).toEqual(expected(f, written(f)).map((r) => r.status));
        expect(rows[0]?.status).toBe('baseline');
      }),
    );

    it(
      'row n is iteration n',
      withFixture(async (f) => {
        const log = await f.open();
        await appendAll(log, written(f));
        expect((await log.read()).map((r) => r.iteration)).toEqual(SAMPLE_ROWS.map((_, n) => n));
      }),
    );

    it(
      'a row reads back as it was written (every field the format keeps)',
      withFixture(async (f) => {
        const log = await f.open();
        await appendAll(log, written(f));
        expect(await log.read()).toEqual(expected(f, written(f)));
      }),
    );

    it(
      "a score reads back at full precision, or rounded to the log's declared decimals",
      withFixture(async (f) => {
        const log = await f.open();
        const scores = [0.1 + 0.2, 1 / 3, 123456.789012345];
        const rows = scores.map((score, i): IterationRecord => {
          const iteration = i + (f.derivedBaseline ? 1 : 0);
          return { ...SAMPLE_ROWS[1]!, iteration, score, status: iteration === 0 ? 'baseline' : 'kept' };
        });
        await appendAll(log, shaped(f, rows));
        const read = (await reopened(f)).slice(f.derivedBaseline ? 1 : 0).map((r) => r.score);
        const round = (x: number | null) =>
          x === null || log.decimals === undefined ? x : Number(x.toFixed(log.decimals));
        // A log that rounds declares `decimals`; `kept` only says which scores are not kept at all (AR-3's baseline).
        expect(read).toEqual(
          expected(f, shaped(f, rows))
            .map((r) => round(r.score))
            .slice(f.derivedBaseline ? 1 : 0),
        );
      }),
    );

    it(
      'an appended row is durable: a log opened right after append resolves reads it',
      withFixture(async (f) => {
        const log = await f.open();
        const rows = written(f);
        for (const [i, row] of rows.entries()) {
          await log.append(row);
          const unstored = f.unstoredBaseline && i === 0;
          expect(await reopened(f)).toEqual(unstored ? [] : expected(f, rows.slice(0, i + 1)));
        }
      }),
    );

    it(
      'a description with tabs and newlines stays one row',
      withFixture(async (f) => {
        const log = await f.open();
        const rows = written(f).map((r) =>
          r.iteration === 2 ? { ...r, description: 'split\tthe cell\nand the line\r\nhere' } : r,
        );
        await appendAll(log, rows);
        const read = await reopened(f);
        expect(read).toHaveLength(SAMPLE_ROWS.length);
        expect(read).toEqual(expected(f, rows));
      }),
    );

    it(
      'amendLast replaces the last row and only it, durably',
      withFixture(async (f, skip) => {
        const log = await f.open();
        if (!log.amendLast) skip('this log has no amendLast');
        const rows = written(f);
        await appendAll(log, rows);
        const last = amended(rows.at(-1)!);
        await log.amendLast!(last);
        const want = expected(f, [...rows.slice(0, -1), last]);
        expect(await log.read()).toEqual(want);
        expect(await reopened(f)).toEqual(want);
      }),
    );

    it(
      'a stored row that cannot be read makes opening or reading the log throw RESULTS_CORRUPT',
      withFixture(async (f, skip) => {
        if (!f.corrupt) skip('this log has no storage to corrupt');
        await appendAll(await f.open(), written(f));
        await f.corrupt!();
        await expect((async () => (await f.open()).read())()).rejects.toMatchObject({ code: 'RESULTS_CORRUPT' });
      }),
    );
  });
}
