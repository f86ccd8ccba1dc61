import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderReportHtml } from './html.js';
import { renderPlotSvg } from './plot.js';
import { runDirOf, writeReport } from './write-report.js';
import { parseResults } from './results.js';

const TSV =
  'commit\tscore\tstatus\tdescription\na1\t2.123456789\tkeep\tbaseline\n' +
  'b2\t2.5\tdiscard\tworse\nc3\t1.987654321\tkeep\tbetter\n';

/** Every text element's content in the SVG. */
function texts(svg: string): string[] {
  const out: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'text')
          for (const t of [v].flat())
            out.push(typeof t === 'object' ? String((t as Record<string, unknown>)['#text'] ?? '') : String(t));
        walk(v);
      }
    }
  };
  walk(new XMLParser({ ignoreAttributes: false }).parse(svg));
  return out;
}

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'loop-report-'));
  mkdirSync(join(ws, '.git'));
  mkdirSync(join(ws, '.loop'));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

describe('loop report defaults', () => {
  it(
    "the default SVG goes to the workspace's .loop/ (git-excluded), never " + 'untracked into the tree a revert cleans',
    async () => {
      writeFileSync(join(ws, 'results.tsv'), TSV);
      const written = await writeReport({ results: join(ws, 'results.tsv'), direction: 'minimize' });
      expect(written.files).toEqual([join(ws, '.loop', 'progress.svg')]);
      expect(existsSync(join(ws, 'progress.svg'))).toBe(false);
    },
  );

  it("a target run's results.tsv in a subfolder reports into the workspace root's .loop/", async () => {
    mkdirSync(join(ws, 'skills', 'x'), { recursive: true });
    writeFileSync(join(ws, 'skills', 'x', 'results.tsv'), TSV);
    expect(runDirOf(join(ws, 'skills', 'x', 'results.tsv'))).toBe(ws);
    const written = await writeReport({ results: join(ws, 'skills', 'x', 'results.tsv'), direction: 'minimize' });
    expect(written.files).toEqual([join(ws, '.loop', 'progress.svg')]);
  });

  it("the axis and title name the run's metric (from .loop/cli.json), not the score column", async () => {
    writeFileSync(join(ws, 'results.tsv'), TSV);
    writeFileSync(join(ws, '.loop', 'cli.json'), JSON.stringify({ tag: 't', metricName: 'val_bpc' }));
    await writeReport({ results: join(ws, 'results.tsv'), direction: 'minimize' });
    const t = texts(readFileSync(join(ws, '.loop', 'progress.svg'), 'utf8'));
    expect(t).toContain('val_bpc (lower is better)');
    expect(t).toContain('val_bpc progress: 2 experiments, 1 kept, 1 discarded, 0 crashed');
    expect(t).not.toContain('score (lower is better)');
    await writeReport({
      results: join(ws, 'results.tsv'),
      direction: 'minimize',
      metric: 'loss',
      out: join(ws, '.loop', 'b.svg'),
    });
    expect(texts(readFileSync(join(ws, '.loop', 'b.svg'), 'utf8'))).toContain('loss (lower is better)');
  });

  it('the baseline has a legend entry, and the subtitle rounds the best exactly as the page does', async () => {
    const data = parseResults(TSV);
    const svg = await renderPlotSvg(data, { direction: 'minimize' });
    const t = texts(svg);
    expect(t.filter((x) => x === 'baseline')).toHaveLength(2); // the point's label and the legend entry
    expect(t).toContain('lower is better; best 1.9876543');
    expect(renderReportHtml(data, svg, { direction: 'minimize' })).toContain('best 1.9876543.');
  });
});
