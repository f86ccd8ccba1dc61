import { escapeHtml } from '../report/html.js';
import { PLOT_COLORS } from '../report/plot.js';

/**
 * The script of the dashboard page (runs in the browser). It subscribes to `/events`; each `run`
 * event redraws that run's card: the status line (running, finished with its stop reason,
 * interrupted, failed), the plot (the Vega spec drawn by `/vega.min.js` as SVG, a new view per
 * update, so the marks grow as rows land), the rows (20 a page, newest first, filtered by class,
 * a page the user moved to stays put as rows land) with buttons showing each experiment's diff
 * and kept run log, an iteration input for any row's diff or log, and the logs' tails. Cards are
 * in path order. Every text goes in through `textContent`.
 */
const CLIENT = String.raw`
const cards = new Map();
const runsEl = document.getElementById('runs');
const emptyEl = document.getElementById('empty');
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
const fmt = (x) => (x === null || x === undefined ? '-' : String(Number(Number(x).toPrecision(8))));
function phaseText(v) {
  if (v.phase === 'running') return 'running';
  if (v.phase === 'stopped') return 'finished: ' + (v.stopReason || 'stopped') + (v.stopMessage ? ' (' + v.stopMessage + ')' : '');
  if (v.phase === 'failed') return 'failed: ' + (v.error || '');
  if (v.phase === 'interrupted') return 'interrupted (no process holds the lock; loop resume continues it)';
  return v.rows.length ? 'finished' : 'no rows yet';
}
const PAGE_ROWS = 20;
const FILTERS = [['all', 'all rows'], ['keep', 'kept'], ['discard', 'discarded'], ['crash', 'crashed'], ['halted', 'halted'], ['baseline', 'baseline']];
const runPath = (v) => '/api/runs/' + v.id.split('/').map(encodeURIComponent).join('/');
function card(id) {
  let c = cards.get(id);
  if (c) return c;
  const root = el('section', 'run');
  root.dataset.id = id;
  c = { root, title: el('h2'), phase: el('p', 'phase'), summary: el('p', 'summary'), plot: el('div', 'plot'), curves: el('div', 'plot curves'), curvesView: undefined, controls: el('div', 'row-controls'), table: el('table', 'rows'), diff: el('pre', 'diff'), logs: el('div', 'logs'), view: undefined, v: undefined, drawn: Promise.resolve(), openLogs: new Map(), filter: 'all', top: null };
  c.diff.hidden = true;
  // The rows are paged (newest first), filtered by class, and any iteration's diff or log is one input away.
  c.filterEl = el('select', 'row-filter');
  for (const [value, label] of FILTERS) { const o = el('option', '', label); o.value = value; c.filterEl.append(o); }
  c.filterEl.onchange = () => { c.filter = c.filterEl.value; c.top = null; renderRows(c); };
  c.newer = el('button', 'newer', '\u2039 newer');
  c.older = el('button', 'older', 'older \u203a');
  c.position = el('span', 'position');
  c.newer.onclick = () => page(c, 1);
  c.older.onclick = () => page(c, -1);
  c.pick = el('input', 'pick');
  c.pick.type = 'number'; c.pick.min = '0'; c.pick.placeholder = 'iteration';
  c.pickDiff = el('button', 'pick-diff', 'diff');
  c.pickLog = el('button', 'pick-log', 'log');
  const picked = () => { const n = Number(c.pick.value); return c.pick.value !== '' && Number.isInteger(n) && n >= 0 ? n : undefined; };
  c.pickDiff.onclick = () => { const n = picked(); if (n !== undefined) showDiff(c, c.v, n); };
  c.pickLog.onclick = () => { const n = picked(); if (n !== undefined) showLog(c, c.v, n); };
  c.controls.append(c.filterEl, c.newer, c.older, c.position, el('span', 'sep', ' \u00b7 iteration '), c.pick, c.pickDiff, c.pickLog);
  root.append(c.title, c.phase, c.summary, c.plot, c.curves, c.controls, c.table, c.diff, c.logs);
  // Cards in path order (as discovery lists the runs), whatever order their first events came in.
  const next = [...cards.keys()].filter((k) => k.localeCompare(id) > 0).sort((a, b) => a.localeCompare(b))[0];
  runsEl.insertBefore(root, next === undefined ? null : cards.get(next).root);
  cards.set(id, c);
  emptyEl.hidden = true;
  return c;
}
async function showDiff(c, v, iteration) {
  c.diff.hidden = false;
  c.diff.dataset.kind = 'diff';
  c.diff.textContent = 'loading the diff of iteration ' + iteration + '...';
  const res = await fetch(runPath(v) + '/diff/' + iteration);
  const body = await res.json();
  c.diff.textContent = res.ok ? 'iteration ' + body.iteration + '  ' + body.status + '  ' + body.description + '  (' + body.ref + ')\n' + body.patch : body.error;
}
async function showLog(c, v, iteration) {
  c.diff.hidden = false;
  c.diff.dataset.kind = 'log';
  c.diff.textContent = 'loading the log of iteration ' + iteration + '...';
  const res = await fetch(runPath(v) + '/log/' + iteration);
  const body = await res.json();
  c.diff.textContent = res.ok ? 'iteration ' + body.iteration + '  run output' + (body.truncated ? ' (its end)' : '') + '  (' + body.path + ')\n' + body.text : body.error;
}
// The rows of the current filter, ascending, and the page's end (exclusive): the newest page unless
// the user paged back (c.top: the newest iteration shown), which stays put as rows land.
function pageOf(c) {
  const list = c.filter === 'all' ? c.v.rows : c.v.rows.filter((r) => r.kind === c.filter);
  let end = list.length;
  if (c.top !== null) { end = list.findIndex((r) => r.iteration > c.top); if (end < 0) end = list.length; }
  return { list, end, start: Math.max(0, end - PAGE_ROWS) };
}
function page(c, dir) {
  const { list, start, end } = pageOf(c);
  if (dir < 0 && start > 0) c.top = list[start - 1].iteration;
  if (dir > 0) { const e = Math.min(list.length, end + PAGE_ROWS); c.top = e >= list.length ? null : list[e - 1].iteration; }
  renderRows(c);
}
function renderRows(c) {
  const v = c.v;
  const { list, start, end } = pageOf(c);
  const kept = new Set(v.keptLogs || []);
  c.older.disabled = start === 0;
  c.newer.disabled = end >= list.length;
  c.position.textContent = list.length === 0 ? ' no rows' : ' rows ' + (list.length - end + 1) + '\u2013' + (list.length - start) + ' of ' + list.length + ' (newest first)';
  c.pickDiff.hidden = v.form !== 'auto-iterate';
  c.table.textContent = '';
  const head = el('tr');
  const costs = v.rows.some((r) => r.costUsd !== undefined || r.tokens !== undefined);
  for (const h of ['iteration', 'status', v.metric, ...(costs ? ['cost'] : []), 'description', '']) head.append(el('th', '', h));
  c.table.append(head);
  for (const r of list.slice(start, end).reverse()) {
    const tr = el('tr', r.kind);
    tr.dataset.iteration = String(r.iteration);
    tr.append(el('td', '', String(r.iteration)), el('td', '', r.status), el('td', 'num', r.score === null ? '-' : fmt(r.score)));
    if (costs) tr.append(el('td', 'num cost', [r.costUsd !== undefined ? '$' + r.costUsd.toFixed(4) : '', r.tokens !== undefined ? r.tokens.toLocaleString('en-US') + ' tok' : ''].filter(Boolean).join(' ') || '-'));
    tr.append(el('td', '', r.description));
    // Named metrics (issue 28), after the description: rss_mb=84.5 ops_per_s=3000.
    if (r.metrics) tr.lastChild.append(el('span', 'metrics', '  [' + Object.keys(r.metrics).sort().map((k) => k + '=' + fmt(r.metrics[k])).join(' ') + ']'));
    const td = el('td');
    if (v.form === 'auto-iterate') {
      const b = el('button', 'show-diff', 'diff');
      b.onclick = () => showDiff(c, v, r.iteration);
      td.append(b);
    }
    if (kept.has(r.iteration)) {
      const b = el('button', 'show-log', 'log');
      b.onclick = () => showLog(c, v, r.iteration);
      td.append(b);
    }
    tr.append(td);
    c.table.append(tr);
  }
}
function update(v) {
  const c = card(v.id);
  c.root.dataset.phase = v.phase;
  c.root.dataset.rows = String(v.rows.length);
  c.title.textContent = v.label;
  c.phase.textContent = phaseText(v);
  c.phase.className = 'phase ' + v.phase;
  const n = v.counts;
  c.summary.textContent = v.problem ? v.problem : n.experiments + ' experiments: ' + n.keep + ' kept, ' + n.discard + ' discarded, ' + n.crash + ' crashed; best ' + v.metric + ' ' + fmt(v.best) + ' (' + (v.direction === 'minimize' ? 'lower' : 'higher') + ' is better)' + (v.spent ? '; ' + v.spent : '');
  // Redraw the plot after the previous draw, so updates never interleave.
  c.drawn = c.drawn.then(async () => {
    if (c.view) c.view.finalize();
    c.view = undefined;
    c.plot.textContent = '';
    if (!v.spec) return;
    c.view = new vega.View(vega.parse(v.spec), { renderer: 'svg', container: c.plot, hover: true });
    await c.view.runAsync();
    c.plot.dataset.marks = String(c.plot.querySelectorAll('g.keptDots > path, g.discardDots > path, g.crashMarks > path, g.haltedMarks > path').length);
    // Each run's intermediate curve against the kept ones (issue 27), when the run reports them.
    if (c.curvesView) c.curvesView.finalize();
    c.curvesView = undefined;
    c.curves.textContent = '';
    c.curves.hidden = !v.curves;
    if (!v.curves) return;
    c.curvesView = new vega.View(vega.parse(v.curves), { renderer: 'svg', container: c.curves, hover: true });
    await c.curvesView.runAsync();
  }).catch((e) => { c.plot.textContent = String(e); });
  c.v = v;
  renderRows(c);
  c.logs.textContent = '';
  for (const l of v.logs) {
    const d = el('details');
    // run.log and the newest iteration's log start open; each log stays as the user left it across updates.
    const key = l.name.startsWith('.loop/logs/') ? 'iteration log' : l.name;
    d.open = c.openLogs.has(key) ? c.openLogs.get(key) : key === 'run.log' || key === 'iteration log';
    d.ontoggle = () => c.openLogs.set(key, d.open);
    d.append(el('summary', '', l.name + ' (last lines)'), el('pre', 'log', l.tail));
    c.logs.append(d);
  }
  // loop dashboard --holdout: the sealed holdout's visible-vs-holdout gap (issue 33).
  if (v.holdout) c.logs.append(el('pre', 'holdout', 'sealed holdout (' + v.holdout.stateDir + '): visible vs holdout\n' + (v.holdout.lines.join('\n') || '  no use yet')));
}
const events = new EventSource('/events');
events.addEventListener('run', (e) => update(JSON.parse(e.data)));
events.addEventListener('gone', (e) => { const id = JSON.parse(e.data).id; const c = cards.get(id); if (c) { c.view?.finalize(); c.root.remove(); cards.delete(id); } emptyEl.hidden = cards.size > 0; });
events.addEventListener('open', () => document.body.dataset.connected = 'yes');
events.addEventListener('error', () => document.body.dataset.connected = 'no');
`;

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
