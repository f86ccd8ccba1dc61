import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { renderReportHtml } from './html.js';
import { renderPlotSvg } from './plot.js';
import { countPoints } from './plot-summary.js';
import { inferDirection, parseResults, runningBest } from './results.js';

const HEADER = 'commit\tscore\tstatus\tdescription';
const tsv = (...rows: string[]) => `${HEADER}\n${rows.join('\n')}\n`;

function wellFormed(svg: string): void {
  expect(XMLValidator.validate(svg)).toBe(true);
  expect(svg.startsWith('<svg')).toBe(true);
}

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

describe('progress plot', () => {
  it('labels kept points with their description, puts the counts in the title, and escapes markup', async () => {
    const data = parseResults(
      tsv(
        'a1\t10\tkeep\tbaseline',
        'b2\t12\tdiscard\tlr up',
        'c3\t8\tkeep\tlr <down> & "more"',
        'd4\tcrash\tcrash\toom',
        'e5\t7\tkeep\tlayers 3',
      ),
    );
    const svg = await renderPlotSvg(data, { direction: 'minimize' });
    wellFormed(svg);
    const t = texts(svg);
    expect(t).toContain('score progress: 4 experiments, 2 kept, 1 discarded, 1 crashed');
    expect(t).toContain('lr <down> & "more"');
    expect(t).toContain('layers 3');
    expect(t).toContain('baseline');
    expect(t).not.toContain('lr up'); // discarded points are not labelled
    expect(svg).toContain('#d73027'); // the crash marker colour
  });

  it('a log that is all crashes still renders, with no best line and a note', async () => {
    const data = parseResults(
      tsv('a1\tcrash\tcrash\tbaseline crashed', 'b2\tcrash\tcrash\tboom', 'c3\tcrash\tcrash\tboom again'),
    );
    expect(runningBest(data.points, 'minimize')).toEqual([null, null, null]);
    const svg = await renderPlotSvg(data, { direction: 'minimize' });
    wellFormed(svg);
    expect(texts(svg)).toContain('no scored experiments (every row crashed)');
    expect(texts(svg)).toContain('score progress: 3 experiments, 0 kept, 0 discarded, 3 crashed');
  });

  it('a single keep (the baseline alone) renders one highlighted point', async () => {
    const data = parseResults(tsv('a1\t3.5\tkeep\tbaseline'));
    expect(countPoints(data.points)).toEqual({ experiments: 0, keep: 0, discard: 0, crash: 0, halted: 0 });
    const svg = await renderPlotSvg(data, { direction: 'minimize' });
    wellFormed(svg);
    expect(texts(svg)).toContain('score progress: 0 experiments, 0 kept, 0 discarded, 0 crashed');
    expect(svg).toContain('#2166ac');
  });

  it('maximize: the running best only goes up, and the axis says higher is better', async () => {
    const data = parseResults(
      tsv(
        'a\t0.5\tkeep\tbaseline',
        'b\t0.4\tdiscard\tworse',
        'c\t0.7\tkeep\tbetter',
        'd\t0.6\tdiscard\tworse again',
        'e\t0.9\tkeep\tbest',
      ),
    );
    expect(inferDirection(data.points)).toBe('maximize');
    expect(runningBest(data.points, 'maximize')).toEqual([0.5, 0.5, 0.7, 0.7, 0.9]);
    const svg = await renderPlotSvg(data, { direction: 'maximize' });
    wellFormed(svg);
    expect(texts(svg)).toContain('score (higher is better)');
  });

  it('minimize: the running best only goes down; the direction is guessed from the first keep', () => {
    const data = parseResults(tsv('a\t5\tkeep\tbaseline', 'b\t4\tkeep\tlower', 'c\t9\tdiscard\thigher'));
    expect(inferDirection(data.points)).toBe('minimize');
    expect(runningBest(data.points, 'minimize')).toEqual([5, 4, 4]);
  });

  it('thousands of rows (5,000) render to well-formed SVG in a few seconds', async () => {
    const rows = ['a0\t100\tkeep\tbaseline'];
    let best = 100;
    for (let i = 1; i < 5000; i += 1) {
      const score = 100 - Math.log(i + 1) * 5 + ((i * 7919) % 13);
      if (i % 97 === 0) rows.push(`c${i}\tcrash\tcrash\tcrash ${i}`);
      else if (score < best) {
        best = score;
        rows.push(`k${i}\t${score}\tkeep\tchange ${i}`);
      } else rows.push(`d${i}\t${score}\tdiscard\ttry ${i}`);
    }
    const data = parseResults(tsv(...rows));
    const started = Date.now();
    const svg = await renderPlotSvg(data, { direction: 'minimize' });
    wellFormed(svg);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(texts(svg).some((x) => /4999 experiments/.test(x))).toBe(true);
  });

  it('reads the autoresearch form right-anchored (iter ... status snapshot utc), higher is better', async () => {
    const text =
      'iter\tcomposite\tdelta\tstructural_health\tnaming_clarity\tstatus\t' +
      'snapshot\tutc\n0\t0.50\t0.00\t0.5\t0.5\tbaseline\ts0\t' +
      '2025-01-01T00:00:00Z\n1\t0.60\t0.10\t0.6\t0.6\tkept\ts1\t' +
      '2025-01-01T00:10:00Z\n2\t0.55\t-0.05\t0.5\t0.6\t' +
      'reverted-redtest\ts2\t2025-01-01T00:20:00Z\n3\t-\t-\t-\t-\t' +
      'crash\t-\t2025-01-01T00:30:00Z\n';
    const data = parseResults(text);
    expect(data).toMatchObject({ form: 'autoresearch', metric: 'composite', direction: 'maximize' });
    expect(data.points.map((p) => [p.iteration, p.kind, p.score])).toEqual([
      [0, 'baseline', 0.5],
      [1, 'keep', 0.6],
      [2, 'discard', 0.55],
      [3, 'crash', null],
    ]);
    wellFormed(await renderPlotSvg(data, { direction: 'maximize' }));
  });

  it('a malformed results.tsv is RESULTS_CORRUPT naming the line', () => {
    expect(() => parseResults(`${HEADER}\na\t1\tkeep\n`, 'r.tsv')).toThrow(
      /r\.tsv:2: expected 4 tab-separated columns/,
    );
  });

  it(
    'the HTML page is self-contained: the SVG inline, the table with every ' + 'row, no scripts or external resources',
    async () => {
      const data = parseResults(
        tsv('a1\t10\tkeep\tbaseline', 'b2\t12\tdiscard\t<script>x</script>', 'c3\t8\tkeep\tbetter'),
      );
      const svg = await renderPlotSvg(data, { direction: 'minimize' });
      const html = renderReportHtml(data, svg, { direction: 'minimize', source: 'results.tsv' });
      expect(html).toContain('<svg');
      expect(html.match(/<tr class=/g)).toHaveLength(3);
      expect(html).toContain('&lt;script&gt;x&lt;/script&gt;');
      expect(html).not.toMatch(/<script|<link|src=|href=/);
      expect(html).toContain('2 experiments: 1 kept, 1 discarded, 0 crashed; lower is better; best 8.');
    },
  );
});
