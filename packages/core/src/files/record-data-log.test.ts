import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IterationRecord } from '../contracts/iteration-record.js';
import { withRecordData } from './record-data-log.js';
import { createMemoryResultsLog } from '../contracts/results-log.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'loop-records-'));
  dirs.push(d);
  return d;
};
const row = (iteration: number, data?: IterationRecord['data']): IterationRecord => ({
  iteration,
  candidateId: `c${iteration}`,
  score: iteration,
  status: iteration === 0 ? 'baseline' : 'reverted',
  description: 'd',
  ...(data ? { data } : {}),
});

describe('withRecordData: rows keep their candidate record across a resume', () => {
  it("read puts each row's data back by iteration from the sidecar, a non-finite report value as NaN", async () => {
    const path = join(tmp(), '.loop', 'records.jsonl');
    const inner = createMemoryResultsLog();
    const log = withRecordData(inner, { path });
    await log.append(row(0, { reports: [{ step: 1, value: 3 }] }));
    await log.append(row(1, { reports: [{ step: 1, value: Number.NaN }], cost: { usd: 0.2 } }));
    await log.append(row(2));
    // A resumed process reads rows from a log that has no room for data.
    const stripped = createMemoryResultsLog(inner.rows.map(({ data: _d, ...r }) => r));
    const rows = await withRecordData(stripped, { path }).read();
    expect(rows[0]?.data).toEqual({ reports: [{ step: 1, value: 3 }] });
    expect(rows[1]?.data).toEqual({ reports: [{ step: 1, value: Number.NaN }], cost: { usd: 0.2 } });
    expect(rows[2]?.data).toBeUndefined();
  });

  it(
    'a torn last line is skipped and the next append starts on a fresh ' + 'line; the last line of an iteration wins',
    async () => {
      const path = join(tmp(), 'records.jsonl');
      await withRecordData(createMemoryResultsLog(), { path }).append(row(0, { params: { a: 1 } }));
      appendFileSync(path, '{"iteration":1,"data":{"par');
      const inner = createMemoryResultsLog([row(0)]);
      const log = withRecordData(inner, { path });
      await log.append(row(1, { params: { a: 2 } }));
      expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(3);
      const rows = await withRecordData(createMemoryResultsLog([row(0), row(1)]), { path }).read();
      expect(rows.map((r) => r.data)).toEqual([{ params: { a: 1 } }, { params: { a: 2 } }]);
    },
  );

  it(
    "the baseline starts the sidecar again (an earlier run's lines go), and " +
      'a failed write is told once without failing the row',
    async () => {
      const path = join(tmp(), 'records.jsonl');
      await withRecordData(createMemoryResultsLog(), { path }).append(row(5, { params: { old: true } }));
      await withRecordData(createMemoryResultsLog(), { path }).append(row(0, { params: { a: 1 } }));
      expect(readFileSync(path, 'utf8')).toBe('{"iteration":0,"data":{"params":{"a":1}}}\n');
      const errors: string[] = [];
      const inner = createMemoryResultsLog();
      const broken = withRecordData(inner, {
        path: join(path, 'not-a-dir', 'x.jsonl'),
        onError: (m) => errors.push(m),
      });
      await broken.append(row(1, { params: {} }));
      await broken.append(row(2, { params: {} }));
      expect(inner.rows).toHaveLength(2);
      expect(errors).toHaveLength(1);
    },
  );

  it('a line whose curve is not a list of { step, value } keeps its other data and has no curve', async () => {
    const path = join(tmp(), 'records.jsonl');
    appendFileSync(
      path,
      [
        '{"iteration":0,"data":{"reports":{"step":100,"value":3.4},"params":{"a":1}}}',
        '{"iteration":1,"data":{"reports":[{"step":100,"value":3.6},{"step":"x","value":1},null,{"step":200}]}}',
      ].join('\n') + '\n',
    );
    const rows = await withRecordData(createMemoryResultsLog([row(0), row(1)]), { path }).read();
    expect(rows.map((r) => r.data)).toEqual([{ params: { a: 1 } }, { reports: [{ step: 100, value: 3.6 }] }]);
  });
});
