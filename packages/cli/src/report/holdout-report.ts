import { readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { type HoldoutUse } from '@loop/core/policies';
import { readJson } from '@loop/core/files';
import { loadConfig } from '../load-config.js';
import { holdoutGap, readHoldoutStatus, type HoldoutStatus } from '../holdout-status.js';
import { escapeHtml } from './html.js';

/** The gap plot's file, in the holdout's state folder (never in the workspace: the agent reads that). */
export const HOLDOUT_GAP_SVG = 'holdout-gap.svg';

/** The holdout status of the workspace `dir`: its config (named in `.loop/cli.json`) says where the scores are. */
export async function holdoutStatusOf(dir: string): Promise<HoldoutStatus | undefined> {
  const cli = (await readJson(join(dir, '.loop', 'cli.json')).catch(() => undefined)) as
    { config?: unknown } | undefined;
  const config = typeof cli?.config === 'string' ? await loadConfig(cli.config).catch(() => undefined) : undefined;
  return readHoldoutStatus(dir, config?.config.holdout);
}

/** The uses that have both a visible and a holdout score (gate uses, final scores), of the latest run. */
export function gapPoints(s: HoldoutStatus): HoldoutUse[] {
  const run = s.uses.at(-1)?.run;
  return s.uses.filter((u) => u.run === run && holdoutGap(u) !== undefined);
}

/**
 * The visible-vs-holdout curve (issue 33) as a small standalone SVG: per use (x: the iteration),
 * the visible score and the holdout score as two lines; the space between them is the
 * overfitting gap. Hand-drawn (no plotting library), 640 x 320.
 */
export function renderHoldoutGapSvg(points: readonly HoldoutUse[], metric = 'score'): string {
  const W = 640;
  const H = 320;
  const pad = { l: 70, r: 20, t: 30, b: 40 };
  const xs = points.map((p) => p.iteration);
  const ys = points.flatMap((p) => [p.visible!, p.score!]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs, Math.min(...xs) + 1)];
  const [y0, y1] = [Math.min(...ys), Math.max(...ys, Math.min(...ys) + 1e-9)];
  const sx = (x: number) => pad.l + ((x - x0) / (x1 - x0)) * (W - pad.l - pad.r);
  const sy = (y: number) => H - pad.b - ((y - y0) / (y1 - y0)) * (H - pad.t - pad.b);
  const line = (get: (p: HoldoutUse) => number, color: string) =>
    `<polyline fill="none" stroke="${color}" stroke-width="2" ` +
    `points="${points.map((p) => `${sx(p.iteration).toFixed(1)},${sy(get(p)).toFixed(1)}`).join(' ')}"/>` +
    points
      .map((p) => `<circle cx="${sx(p.iteration).toFixed(1)}" cy="${sy(get(p)).toFixed(1)}" r="3" fill="${color}"/>`)
      .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" ` +
    `font-family="sans-serif" font-size="12">
<text x="${pad.l}" y="18" font-size="14">${escapeHtml(metric)}: visible vs sealed holdout (the gap is ` +
    `overfitting)</text>
<line x1="${pad.l}" y1="${H - pad.b}" x2="${W - pad.r}" y2="${H - pad.b}" stroke="#999"/><line x1="${pad.l}" y1="` +
    `${pad.t}" x2="${pad.l}" y2="${H - pad.b}" stroke="#999"/>
<text x="${pad.l - 6}" y="${sy(y1) + 4}" text-anchor="end">${y1.toPrecision(5)}</text><text x="${pad.l - 6}" y="` +
    `${sy(y0) + 4}" text-anchor="end">${y0.toPrecision(5)}</text>
<text x="${sx(x0)}" y="${H - pad.b + 16}" text-anchor="middle">${x0}</text><text x="${sx(x1)}" y="${H - pad.b + 16}` +
    `" text-anchor="middle">${x1}</text>
<text x="${(W + pad.l) / 2}" y="${H - 8}" text-anchor="middle">iteration</text>
${line((p) => p.visible!, '#1f77b4')}
${line((p) => p.score!, '#d62728')}
<text x="${W - pad.r}" y="${pad.t}" text-anchor="end" fill="#1f77b4">visible</text><text x="${W - pad.r}" y="` +
    `${pad.t + 16}" text-anchor="end" fill="#d62728">holdout</text>
</svg>
`
  );
}

/** The text table of the gap: one line per use with both scores. */
export function holdoutGapLines(points: readonly HoldoutUse[]): string[] {
  const f = (x: number | undefined) => (x === undefined ? '-' : x.toFixed(6));
  return points.map(
    (u) =>
      `  it ${String(u.iteration).padStart(3)}  ${u.kind.padEnd(14)}  ` +
      `visible ${f(u.visible)}  holdout ${f(u.score)}  ` +
      `gap ${f(holdoutGap(u))}${u.blocked ? '  kept back' : ''}`,
  );
}

const inside = (path: string, dir: string) => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * `loop report`'s holdout part: prints the visible-vs-holdout table, writes the gap plot into the
 * holdout's state folder, and adds both to the HTML page when that page lies outside the
 * workspace (a page inside it could be read by the agent: then it is left out, with a line saying so).
 * @returns the lines to print; [] when the workspace has no holdout score.
 */
export async function writeHoldoutReport(dir: string, html: string | undefined): Promise<string[]> {
  const status = await holdoutStatusOf(dir);
  const points = status ? gapPoints(status) : [];
  if (!status || points.length === 0) return [];
  const svg = renderHoldoutGapSvg(points);
  const svgPath = join(status.stateDir, HOLDOUT_GAP_SVG);
  await writeFile(svgPath, svg, { mode: 0o600 });
  const lines = [
    'holdout   visible vs sealed holdout (the gap is overfitting):',
    ...holdoutGapLines(points),
    `wrote ${svgPath}`,
  ];
  if (html && !inside(html, dir)) {
    const page = await readFile(html, 'utf8');
    const table = holdoutGapLines(points)
      .map((l) => escapeHtml(l.trim()))
      .join('\n');
    await writeFile(
      html,
      page.replace(
        '</body>',
        `<h2>Sealed holdout</h2>\n<figure id="holdout">\n${svg}</figure>\n<pre ` +
          `id="holdout-gap">${table}</pre>\n</body>`,
      ),
    );
  } else if (html) lines.push(`(the holdout is left out of ${html}: it lies in the workspace, which the agent reads)`);
  return lines;
}
