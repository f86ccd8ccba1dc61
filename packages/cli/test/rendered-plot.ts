/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Reading a rendered progress plot in a real browser page: its marks as the browser laid them out,
// and the pixels of a screenshot by colour (report-browser.test.ts).
import type { Page } from 'playwright-core';

/** The rendered marks of the plot, as the browser laid them out (centres in page px). */
export interface Marks {
  svg: { width: number; height: number; top: number; bottom: number; left: number; right: number };
  kept: { x: number; y: number; fill: string }[];
  discarded: { x: number; y: number }[];
  crashes: { x: number; y: number }[];
  bestLines: number;
  labels: string[];
  title: string;
  subtitle: string;
}

/** Reads the plot's marks, title and subtitle from the page (the SVG in `figure#plot`). */
export function marks(page: Page): Promise<Marks> {
  return page.evaluate(() => {
    const svg = document.querySelector('figure#plot > svg')!;
    const r = svg.getBoundingClientRect();
    const centre = (el: Element) => {
      const b = el.getBoundingClientRect();
      return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    };
    const all = (sel: string) => [...svg.querySelectorAll(sel)];
    return {
      svg: { width: r.width, height: r.height, top: r.top, bottom: r.bottom, left: r.left, right: r.right },
      kept: all('g.keptDots > path').map((p) => ({ ...centre(p), fill: p.getAttribute('fill') ?? '' })),
      discarded: all('g.discardDots > path').map(centre),
      crashes: all('g.crashMarks > path').map(centre),
      bestLines: all('g.bestLine > path').length,
      labels: all('g.keptLabels > text').map((t) => t.textContent ?? ''),
      title: svg.querySelector('g.role-title-text text')?.textContent ?? '',
      subtitle: svg.querySelector('g.role-title-subtitle text')?.textContent ?? '',
    };
  });
}

/** Counts the pixels of a PNG (decoded by the browser) within `tolerance` of each colour. */
export async function pixelCounts(
  page: Page,
  png: Buffer,
  colors: Record<string, string>,
  tolerance = 24,
): Promise<Record<string, number>> {
  return page.evaluate(
    async ({ dataUrl, colors, tolerance }) => {
      const img = new Image();
      img.src = dataUrl;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      const targets = Object.entries(colors).map(
        ([name, hex]) => [name, [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))] as const,
      );
      const counts: Record<string, number> = Object.fromEntries(targets.map(([n]) => [n, 0]));
      for (let i = 0; i < data.length; i += 4) {
        for (const [name, [r, g, b]] of targets) {
          if (
            Math.abs(data[i]! - r!) <= tolerance &&
            Math.abs(data[i + 1]! - g!) <= tolerance &&
            Math.abs(data[i + 2]! - b!) <= tolerance
          )
            counts[name]! += 1;
        }
      }
      return counts;
    },
    { dataUrl: `data:image/png;base64,${png.toString('base64')}`, colors, tolerance },
  );
}
