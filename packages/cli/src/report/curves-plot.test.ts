import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeReport } from './write-report.js';

const TSV =
  'commit\tscore\tstatus\tdescription\na1\t3\tkeep\tbaseline\nb2\t3.4\tdiscard\tlr ' +
  'up (pruned at step 200 of 400: 3.4 vs incumbent 3.1)\nc3\t2.5\tkeep\tlr ' +
  'down\nd4\t-\tcrash\tboom\n';
const line = (iteration: number, values: number[], pruned = false) =>
  JSON.stringify({
    iteration,
    data: {
      reports: values.map((value, i) => ({ step: (i + 1) * 100, value })),
      ...(pruned ? { pruned: { step: 200, value: 3.4, reason: 'r', pruner: 'incumbent-curve' } } : {}),
    },
  });

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'loop-curves-'));
  mkdirSync(join(ws, '.git'));
  mkdirSync(join(ws, '.loop'));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe("loop report draws each run's curve against the kept ones (issue 27)", () => {
  it(
    'a run with intermediate reports gets a curves SVG beside the progress ' +
      'plot, the pruned run ending in a cross, and the HTML page shows it',
    async () => {
      writeFileSync(join(ws, 'results.tsv'), TSV);
      writeFileSync(
        join(ws, '.loop', 'records.jsonl'),
        `${[line(0, [3.6, 3.3, 3.1, 3]), line(1, [3.8, 3.4], true), line(2, [3.2, 2.9, 2.7, 2.5])].join('\n')}\n`,
      );
      const written = await writeReport({ results: join(ws, 'results.tsv'), direction: 'minimize', metric: 'val_bpc' });
      expect(written.files).toEqual([join(ws, '.loop', 'progress.svg'), join(ws, '.loop', 'progress-curves.svg')]);
      const svg = readFileSync(join(ws, '.loop', 'progress-curves.svg'), 'utf8');
      expect(svg).toContain('val_bpc curves: 3 runs, 1 pruned');
      expect((svg.match(/<path[^>]*aria-roledescription="line mark"|class="mark-line/g) ?? []).length).toBeGreaterThan(
        0,
      );
      expect(svg).toContain('mark-symbol'); // the cross where the pruned run stopped
      await writeReport({ results: join(ws, 'results.tsv'), direction: 'minimize', html: join(ws, 'r.html') });
      expect(readFileSync(join(ws, 'r.html'), 'utf8')).toContain('<figure id="curves">');
    },
  );

  it('a run without reports has no curves file and no curves figure', async () => {
    writeFileSync(join(ws, 'results.tsv'), TSV);
    const written = await writeReport({
      results: join(ws, 'results.tsv'),
      direction: 'minimize',
      html: join(ws, 'r.html'),
    });
    expect(written.files).toEqual([join(ws, 'r.html')]);
    expect(readFileSync(join(ws, 'r.html'), 'utf8')).not.toContain('id="curves"');
  });
});
