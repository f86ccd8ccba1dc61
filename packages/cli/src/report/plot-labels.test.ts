import { describe, expect, it } from 'vitest';
import { selectLabels, type LabelCandidate, type LabelLayout } from './plot-labels.js';
import { plotSpec, renderPlotSvg } from './plot.js';
import { parseResults } from './results.js';

const HEADER = 'commit\tscore\tstatus\tdescription';

/** A run like the issue's: `n` rows, a slowly improving score with noise, a keep whenever the score beats the best. */
function longRun(
  n: number,
  description = (i: number) => `lr 0.0${i % 10} -> 0.0${(i + 3) % 10}, layers ${i % 7}`,
): string {
  const rows = [HEADER, 'a0\t100\tkeep\tbaseline'];
  let best = 100;
  for (let i = 1; i < n; i += 1) {
    const score = 100 - Math.log(i + 1) * 5 + ((i * 7919) % 13);
    if (score < best) {
      best = score;
      rows.push(`k${i}\t${score}\tkeep\t${description(i)}`);
    } else rows.push(`d${i}\t${score}\tdiscard\ttry ${i}`);
  }
  return `${rows.join('\n')}\n`;
}

/**
 * The keptLabels texts of a rendered SVG: the anchor of each (`translate(x,y) rotate(-35) translate(0,-2)`) and its
 * text.
 */
function labelsOf(svg: string): Array<{ x: number; y: number; text: string }> {
  const group = /<g class="mark-text role-mark keptLabels"[^>]*>(.*?)<\/g>/s.exec(svg)?.[1] ?? '';
  const unescape = (t: string) =>
    t
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&quot;', '"')
      .replaceAll('&#39;', "'")
      .replaceAll('&amp;', '&');
  return [
    ...group.matchAll(
      /<text[^>]*transform="translate\(([-\d.e]+),([-\d.e]+)\) rotate\(-35\)[^"]*"[^>]*>(.*?)<\/text>/gs,
    ),
  ].map((m) => ({ x: Number(m[1]), y: Number(m[2]), text: unescape(m[3]!) }));
}

/**
 * The corners on screen of a label's box (length `chars` × 6.5 px, 13 px tall), rotated 35° up from its anchor:
 * computed independently of selectLabels's frame.
 */
function corners(l: { x: number; y: number; text: string }): Array<[number, number]> {
  const a = (35 * Math.PI) / 180;
  const along: [number, number] = [Math.cos(a), -Math.sin(a)];
  const up: [number, number] = [-Math.sin(a), -Math.cos(a)];
  const len = l.text.length * 6.5 - 0.01;
  const h = 13 - 0.01;
  const at = (s: number, t: number): [number, number] => [
    l.x + along[0] * s + up[0] * t,
    l.y + along[1] * s + up[1] * t,
  ];
  return [at(0.005, 0.005), at(len, 0.005), at(len, h), at(0.005, h)];
}

/** Separating-axis test of two convex polygons on screen. */
function polygonsOverlap(p: Array<[number, number]>, q: Array<[number, number]>): boolean {
  for (const poly of [p, q]) {
    for (let i = 0; i < poly.length; i += 1) {
      const [x1, y1] = poly[i]!;
      const [x2, y2] = poly[(i + 1) % poly.length]!;
      const axis: [number, number] = [y1 - y2, x2 - x1];
      const project = (pts: Array<[number, number]>) => pts.map(([x, y]) => x * axis[0] + y * axis[1]);
      const [a, b] = [project(p), project(q)];
      if (Math.max(...a) <= Math.min(...b) || Math.max(...b) <= Math.min(...a)) return false;
    }
  }
  return true;
}

const layout = (over: Partial<LabelLayout> = {}): LabelLayout => ({
  direction: 'minimize',
  width: 760,
  height: 300,
  xDomain: [0, 10],
  yDomain: [0, 100],
  labelChars: 48,
  ...over,
});
const keep = (iteration: number, score: number, text = `change ${iteration}`): LabelCandidate => ({
  iteration,
  score,
  kind: 'keep',
  text,
});
const baseline = (score: number): LabelCandidate => ({ iteration: 0, score, kind: 'baseline', text: 'baseline' });

describe('which kept points get a label (issue 32 item 11)', () => {
  it('a few keeps far apart are all labelled, as before', () => {
    expect(selectLabels([baseline(100), keep(3, 60), keep(7, 20)], layout())).toEqual([0, 3, 7]);
  });

  it(
    'two labels that would overlap: the one with the larger improvement ' +
      'wins; the baseline and the last keep (the best) come first',
    () => {
      // 40 and 41 sit next to each other (7 px apart) at nearly the same height: their labels would overlap.
      const near = layout({ xDomain: [0, 100] });
      expect(selectLabels([baseline(100), keep(40, 99.5), keep(41, 98, 'bigger gain'), keep(100, 10)], near)).toEqual([
        0, 41, 100,
      ]);
      expect(selectLabels([baseline(100), keep(40, 98, 'bigger gain'), keep(41, 97.5), keep(100, 10)], near)).toEqual([
        0, 40, 100,
      ]);
      // The last keep wins over a larger improvement right before it.
      expect(selectLabels([baseline(100), keep(99, 20, 'big gain'), keep(100, 19.5)], near)).toEqual([0, 100]);
    },
  );

  it('maximize: improvements are score rises', () => {
    const near = layout({ direction: 'maximize', xDomain: [0, 100] });
    expect(selectLabels([baseline(0), keep(40, 0.5), keep(41, 2, 'bigger gain'), keep(100, 90)], near)).toEqual([
      0, 41, 100,
    ]);
  });

  it('never more than maxLabels, and none with maxLabels 0', () => {
    const points = [baseline(100), ...Array.from({ length: 40 }, (_, i) => keep((i + 1) * 100, 100 - i * 2.5, 'x'))];
    const wide = layout({ width: 100_000, xDomain: [0, 4000] });
    expect(selectLabels(points, wide)).toHaveLength(12);
    expect(selectLabels(points, { ...wide, maxLabels: 5 })).toHaveLength(5);
    expect(selectLabels(points, { ...wide, maxLabels: 0 })).toEqual([]);
  });

  it(
    'the plot of a 3,200-row run labels a handful of its keeps, and no two ' + 'drawn labels overlap on screen',
    async () => {
      const data = parseResults(longRun(3200));
      const keeps = data.points.filter((p) => p.kind === 'keep').length;
      const svg = await renderPlotSvg(data, { direction: 'minimize', width: 760, height: 300 });
      const labels = labelsOf(svg);
      expect(keeps).toBeGreaterThan(20);
      expect(labels.length).toBeGreaterThanOrEqual(3);
      expect(labels.length).toBeLessThanOrEqual(12);
      expect(labels.map((l) => l.text)).toContain('baseline');
      for (let i = 0; i < labels.length; i += 1) {
        for (let j = i + 1; j < labels.length; j += 1)
          expect(
            polygonsOverlap(corners(labels[i]!), corners(labels[j]!)),
            `${labels[i]!.text} / ${labels[j]!.text}`,
          ).toBe(false);
      }
      // Every kept dot keeps its description as a tooltip (the labelled ones and the others).
      const spec = plotSpec(data, { direction: 'minimize', width: 760, height: 300 });
      const marks = (spec.marks ?? []) as Array<{ name?: string; encode?: { enter?: { tooltip?: unknown } } }>;
      expect(marks.find((m) => m.name === 'keptDots')?.encode?.enter?.tooltip).toBeDefined();
    },
  );

  it('30 rows with a keep on most of them: the drawn labels do not overlap', async () => {
    const rows = [
      HEADER,
      'a0\t100\tkeep\tbaseline',
      ...Array.from({ length: 30 }, (_, i) => `k${i + 1}\t${99 - i}\tkeep\tlearning rate 0.0${i} -> 0.0${i + 1}`),
    ];
    const svg = await renderPlotSvg(parseResults(`${rows.join('\n')}\n`), {
      direction: 'minimize',
      width: 760,
      height: 300,
    });
    const labels = labelsOf(svg);
    expect(labels.length).toBeGreaterThanOrEqual(2);
    expect(labels.length).toBeLessThan(31);
    for (let i = 0; i < labels.length; i += 1) {
      for (let j = i + 1; j < labels.length; j += 1)
        expect(polygonsOverlap(corners(labels[i]!), corners(labels[j]!))).toBe(false);
    }
  });

  it('the overlap check itself: two labels at the same anchor overlap, two far apart do not', () => {
    const l = { x: 100, y: 200, text: 'same place' };
    expect(polygonsOverlap(corners(l), corners({ ...l, x: 105 }))).toBe(true);
    expect(polygonsOverlap(corners(l), corners({ ...l, x: 600 }))).toBe(false);
  });
});
