import type { Direction } from '@loop/core';
import { PLOT_COLORS } from './plot.js';
import { countPoints, countsText, formatScore } from './plot-summary.js';
import { runningBest, type ResultsData } from './results.js';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/**
 * The inline copy of the plot made responsive: its fixed `width`/`height` become `width="100%"`
 * (height follows from the `viewBox`), so the whole plot scales into a narrow window instead of
 * being cut off on the right. The standalone SVG file keeps its pixel size.
 */
export function responsiveSvg(svg: string): string {
  return svg.replace(/^<svg\b[^>]*>/, (tag) => {
    const m = /\swidth="([\d.]+)"\s+height="([\d.]+)"/.exec(tag);
    if (!m) return tag;
    const box = /\sviewBox="/.test(tag) ? '' : ` viewBox="0 0 ${m[1]} ${m[2]}"`;
    return tag.replace(m[0], ` width="100%"${box}`);
  });
}

/** Options of {@link renderReportHtml}. */
export interface ReportHtmlOptions {
  /** Which way scores improve. */
  direction: Direction;
  /** The page title. @default `<metric> progress` */
  title?: string;
  /** Where the data came from, shown under the title. */
  source?: string;
  /** The curves plot (issue 27: each run's intermediate reports), shown under the progress plot. @default none */
  curvesSvg?: string;
}

/**
 * A self-contained HTML page: the SVG plot inline, the counts, and the full table of rows
 * (status coloured, the running best alongside). No scripts, no external resources.
 */
export function renderReportHtml(data: ResultsData, svg: string, options: ReportHtmlOptions): string {
  const title = options.title ?? `${data.metric} progress`;
  const best = runningBest(data.points, options.direction);
  const c = countPoints(data.points);
  const fmt = (x: number | null | undefined) => (x === null || x === undefined ? '' : formatScore(x));
  const rows = data.points
    .map(
      (p, i) =>
        `<tr class="${p.kind}"><td>${p.iteration}</td><td>` +
        `${escapeHtml(p.id.slice(0, 12))}</td><td>` +
        `${p.score === null ? (p.kind === 'crash' ? 'crash' : '-') : fmt(p.score)}` +
        `</td><td>${escapeHtml(p.status)}</td><td>${fmt(best[i])}` +
        `</td><td>${escapeHtml(p.description)}</td></tr>`,
    )
    .join('\n');
  return (
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
figure { margin: 0 0 1.5rem 0; }
figure#plot > svg, figure#curves > svg { display: block; width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 0.85rem; }
th, td { padding: 0.2rem 0.6rem; text-align: left; border-bottom: 1px solid #eee; }
td:nth-child(3), td:nth-child(5) { text-align: right; font-variant-numeric: tabular-nums; }
tr.keep td:nth-child(4), tr.baseline td:nth-child(4) { color: ${PLOT_COLORS.keep}; font-weight: 600; }
tr.discard td { color: #777; }
tr.crash td:nth-child(3), tr.crash td:nth-child(4) { color: ${PLOT_COLORS.crash}; font-weight: 600; }
tr.halted td:nth-child(4) { color: ${PLOT_COLORS.halted}; font-weight: 600; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p id="summary">${escapeHtml(options.source ?? '')} ${c.experiments} experiments: ${countsText(c)}; ` +
    `${options.direction === 'minimize' ? 'lower' : 'higher'} is better; best ${fmt(best.at(-1))}.</p>
<figure id="plot">
${responsiveSvg(svg)}
</figure>${options.curvesSvg ? `\n<figure id="curves">\n${responsiveSvg(options.curvesSvg)}\n</figure>` : ''}
<table id="results">
<thead><tr><th>iteration</th><th>${data.form === 'auto-iterate' ? 'commit' : 'snapshot'}</th><th>` +
    `${escapeHtml(data.metric)}</th><th>status</th><th>best so far</th><th>description</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</body>
</html>
`
  );
}
