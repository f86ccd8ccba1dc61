import { escapeHtml } from '../report/html.js';
import { PLOT_COLORS } from '../report/plot.js';
import { CLIENT } from './client-script.js';

/**
 * The dashboard page: styles, vega from this server (`/vega.min.js`), and the {@link CLIENT} script. Loads nothing from
 * another host.
 */
export function dashboardHtml(root: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>loop dashboard</title>
<style>
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #222; }
section.run { border: 1px solid #ddd; border-radius: 6px; padding: 0.5rem 1rem 1rem; margin-bottom: 1.5rem; }
.phase { font-weight: 600; }
.phase.running { color: ${PLOT_COLORS.baseline}; }
.phase.stopped { color: ${PLOT_COLORS.keep}; }
.phase.failed, .phase.interrupted { color: ${PLOT_COLORS.crash}; }
.plot svg { max-width: 100%; height: auto; }
table.rows { border-collapse: collapse; font-size: 0.85rem; }
table.rows th, table.rows td { padding: 0.15rem 0.5rem; text-align: left; border-bottom: 1px solid #eee; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.keep td:nth-child(2), tr.baseline td:nth-child(2) { color: ${PLOT_COLORS.keep}; font-weight: 600; }
tr.discard td { color: #777; }
tr.crash td:nth-child(2) { color: ${PLOT_COLORS.crash}; font-weight: 600; }
.row-controls { margin: 0.5rem 0; font-size: 0.85rem; }
.row-controls input.pick { width: 6rem; }
pre { background: #f6f6f6; padding: 0.5rem; overflow: auto; max-height: 24rem; font-size: 0.8rem; }
</style>
<script src="/vega.min.js"></script>
</head>
<body>
<h1>loop dashboard</h1>
<p id="root">runs in ${escapeHtml(root)}</p>
<p id="empty">no runs here yet (a workspace with results.tsv or .loop/ appears as soon as its run starts)</p>
<div id="runs"></div>
<script>${CLIENT}</script>
</body>
</html>
`;
}
