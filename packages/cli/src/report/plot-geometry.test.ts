// The progress plot's geometry, read from the rendered SVG (issue 32 item 19): no tall empty band
// between the title and the axes, kept labels below the title, and a y axis that does not go below
// zero for positive scores.
import { describe, expect, it } from 'vitest';
import { renderPlotSvg } from './plot.js';
import { parseResults } from './results.js';

const tsv = (...rows: string[]) => `commit\tscore\tstatus\tdescription\n${rows.join('\n')}\n`;
const num = (s: string) => Number(s.replace('\u2212', '-'));

/** Positions in the plot's coordinates (0 = the top of the axes' area, y grows downwards). */
function geometry(svg: string) {
  const title = /class="mark-group role-title"><g transform="translate\(([-\d.]+),([-\d.]+)\)"/.exec(svg);
  const subtitle = /role-title-subtitle[^>]*>\s*<text[^>]*transform="translate\([-\d.]+,([-\d.]+)\)"/.exec(svg);
  if (!title || !subtitle) throw new Error('no title in the SVG');
  const titleBottom = num(title[2]!) + num(subtitle[1]!) + 4; // the subtitle's baseline plus its descent
  const labels = /class="mark-text role-mark keptLabels"[^>]*>(.*?)<\/g>/s.exec(svg)?.[1] ?? '';
  // A label is anchored at (x, y) and rotated -35 degrees: its top is about len * 5.6 * sin 35 + its height above y.
  const labelTops = [
    ...labels.matchAll(/transform="translate\(([-\d.]+),([-\d.]+)\) rotate\(-35\)[^"]*"[^>]*>([^<]*)<\/text>/g),
  ].map((m) => num(m[2]!) - m[3]!.replace(/&[a-z]+;/g, '&').length * 5.6 * Math.sin((35 * Math.PI) / 180) - 10);
  const yTicks = [
    ...svg.matchAll(/<text text-anchor="end" transform="translate\(-7,[-\d.]+\)"[^>]*>([^<]*)<\/text>/g),
  ].map((m) => num(m[1]!));
  return { titleBottom, highestLabel: Math.min(...labelTops), yTicks };
}

describe('progress plot geometry (the rendered SVG)', () => {
  it('leaves no tall empty band above the axes when the kept labels sit low (a minimize run)', async () => {
    const long = 'activation relu -> gelu, layers 2 -> 5, lr 0.01 -> 0.0017894';
    const data = parseResults(
      tsv(
        'a1\t0.95\tkeep\tbaseline',
        `b2\t0.16\tkeep\t${long}`,
        'c3\t3.03\tdiscard\tlayers 5 -> 1',
        'd4\t2.5\tdiscard\tlayers 5 -> 8',
        `e5\t0.004\tkeep\t${long}`,
      ),
    );
    const g = geometry(await renderPlotSvg(data, { direction: 'minimize' }));
    const topOfDrawing = Math.min(0, g.highestLabel);
    expect(topOfDrawing - g.titleBottom).toBeLessThanOrEqual(30); // was 110 px
    expect(topOfDrawing - g.titleBottom).toBeGreaterThanOrEqual(0);
  });

  it(
    'keeps a long label at the top of the plot below the title (a maximize ' + 'run whose best is the last keep)',
    async () => {
      const long = 'switch the optimiser to AdamW with a cosine schedule and warmup';
      const data = parseResults(tsv('a1\t0.2\tkeep\tbaseline', 'b2\t0.1\tdiscard\tworse', `c3\t0.9\tkeep\t${long}`));
      const g = geometry(await renderPlotSvg(data, { direction: 'maximize' }));
      expect(g.highestLabel).toBeLessThan(0); // it does rise above the axes' area ...
      expect(g.highestLabel).toBeGreaterThanOrEqual(g.titleBottom); // ... but not into the title
    },
  );

  it('starts the y axis at 0, not below, for positive scores (spread or all equal)', async () => {
    const spread = parseResults(tsv('a1\t0.95\tkeep\tbaseline', 'b2\t3.03\tdiscard\tx', 'c3\t0.004\tkeep\ty'));
    const ticks = geometry(await renderPlotSvg(spread, { direction: 'minimize' })).yTicks;
    expect(ticks.length).toBeGreaterThan(2);
    expect(Math.min(...ticks)).toBe(0);
    const equal = geometry(
      await renderPlotSvg(parseResults(tsv('a1\t0.5\tkeep\tbaseline', 'b2\t0.5\tdiscard\tsame')), {
        direction: 'minimize',
      }),
    ).yTicks;
    expect(Math.min(...equal)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...equal)).toBeGreaterThanOrEqual(0.5);
    const negative = geometry(
      await renderPlotSvg(parseResults(tsv('a1\t-2\tkeep\tbaseline', 'b2\t-0.01\tkeep\tup')), {
        direction: 'maximize',
      }),
    ).yTicks;
    expect(Math.max(...negative)).toBe(0);
  });
});
