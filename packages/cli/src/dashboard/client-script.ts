import { ROWS_SCRIPT } from './client-rows.js';

/**
 * The script of the dashboard page (runs in the browser). It subscribes to `/events`; each `run`
 * event redraws that run's card: the status line (running, finished with its stop reason,
 * interrupted, failed), the plot (the Vega spec drawn by `/vega.min.js` as SVG, a new view per
 * update, so the marks grow as rows land), the rows (20 a page, newest first, filtered by class,
 * a page the user moved to stays put as rows land) with buttons showing each experiment's diff
 * and kept run log, an iteration input for any row's diff or log, and the logs' tails. Cards are
 * in path order. Every text goes in through `textContent`.
 */
export const CLIENT = String.raw`
const cards = new Map();
const runsEl = document.getElementById('runs');
const emptyEl = document.getElementById('empty');
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};
const fmt = (x) => (x === null || x === undefined ? '-' : String(Number(Number(x).toPrecision(8))));
function phaseText(v) {
  if (v.phase === 'running') return 'running';
  if (v.phase === 'stopped')
    return 'finished: ' + (v.stopReason || 'stopped') + (v.stopMessage ? ' (' + v.stopMessage + ')' : '');
  if (v.phase === 'failed') return 'failed: ' + (v.error || '');
  if (v.phase === 'interrupted') return 'interrupted (no lock holder: loop resume or the next loop_evaluate goes on)';
  return v.rows.length ? 'finished' : 'no rows yet';
}
const PAGE_ROWS = 20;
const FILTERS = [
  ['all', 'all rows'],
  ['keep', 'kept'],
  ['discard', 'discarded'],
  ['crash', 'crashed'],
  ['halted', 'halted'],
  ['baseline', 'baseline'],
];
const runPath = (v) => '/api/runs/' + v.id.split('/').map(encodeURIComponent).join('/');
function card(id) {
  let c = cards.get(id);
  if (c) return c;
  const root = el('section', 'run');
  root.dataset.id = id;
  c = {
    root,
    title: el('h2'),
    phase: el('p', 'phase'),
    summary: el('p', 'summary'),
    plot: el('div', 'plot'),
    curves: el('div', 'plot curves'),
    curvesView: undefined,
    controls: el('div', 'row-controls'),
    table: el('table', 'rows'),
    diff: el('pre', 'diff'),
    logs: el('div', 'logs'),
    view: undefined,
    v: undefined,
    drawn: Promise.resolve(),
    openLogs: new Map(),
    filter: 'all',
    top: null,
  };
  c.diff.hidden = true;
  // The rows are paged (newest first), filtered by class, and any iteration's diff or log is one input away.
  c.filterEl = el('select', 'row-filter');
  for (const [value, label] of FILTERS) {
    const o = el('option', '', label);
    o.value = value;
    c.filterEl.append(o);
  }
  c.filterEl.onchange = () => {
    c.filter = c.filterEl.value;
    c.top = null;
    renderRows(c);
  };
  c.newer = el('button', 'newer', '\u2039 newer');
  c.older = el('button', 'older', 'older \u203a');
  c.position = el('span', 'position');
  c.newer.onclick = () => page(c, 1);
  c.older.onclick = () => page(c, -1);
  c.pick = el('input', 'pick');
  c.pick.type = 'number';
  c.pick.min = '0';
  c.pick.placeholder = 'iteration';
  c.pickDiff = el('button', 'pick-diff', 'diff');
  c.pickLog = el('button', 'pick-log', 'log');
  const picked = () => {
    const n = Number(c.pick.value);
    return c.pick.value !== '' && Number.isInteger(n) && n >= 0 ? n : undefined;
  };
  c.pickDiff.onclick = () => {
    const n = picked();
    if (n !== undefined) showDiff(c, c.v, n);
  };
  c.pickLog.onclick = () => {
    const n = picked();
    if (n !== undefined) showLog(c, c.v, n);
  };
  c.controls.append(
    c.filterEl,
    c.newer,
    c.older,
    c.position,
    el('span', 'sep', ' \u00b7 iteration '),
    c.pick,
    c.pickDiff,
    c.pickLog,
  );
  root.append(c.title, c.phase, c.summary, c.plot, c.curves, c.controls, c.table, c.diff, c.logs);
  // Cards in path order (as discovery lists the runs), whatever order their first events came in.
  const next = [...cards.keys()].filter((k) => k.localeCompare(id) > 0).sort((a, b) => a.localeCompare(b))[0];
  runsEl.insertBefore(root, next === undefined ? null : cards.get(next).root);
  cards.set(id, c);
  emptyEl.hidden = true;
  return c;
}
${ROWS_SCRIPT}
function update(v) {
  const c = card(v.id);
  c.root.dataset.phase = v.phase;
  c.root.dataset.rows = String(v.rows.length);
  c.title.textContent = v.label;
  c.phase.textContent = phaseText(v);
  c.phase.className = 'phase ' + v.phase;
  const n = v.counts;
  c.summary.textContent = v.problem
    ? v.problem
    : n.experiments +
      ' experiments: ' +
      n.keep +
      ' kept, ' +
      n.discard +
      ' discarded, ' +
      n.crash +
      ' crashed; best ' +
      v.metric +
      ' ' +
      fmt(v.best) +
      ' (' +
      (v.direction === 'minimize' ? 'lower' : 'higher') +
      ' is better)' +
      (v.spent ? '; ' + v.spent : '');
  // Redraw the plot after the previous draw, so updates never interleave.
  c.drawn = c.drawn
    .then(async () => {
      if (c.view) c.view.finalize();
      c.view = undefined;
      c.plot.textContent = '';
      if (!v.spec) return;
      c.view = new vega.View(vega.parse(v.spec), { renderer: 'svg', container: c.plot, hover: true });
      await c.view.runAsync();
      c.plot.dataset.marks = String(
        c.plot.querySelectorAll('g.keptDots > path, g.discardDots > path, g.crashMarks > path, g.haltedMarks > path')
          .length,
      );
      // Each run's intermediate curve against the kept ones (issue 27), when the run reports them.
      if (c.curvesView) c.curvesView.finalize();
      c.curvesView = undefined;
      c.curves.textContent = '';
      c.curves.hidden = !v.curves;
      if (!v.curves) return;
      c.curvesView = new vega.View(vega.parse(v.curves), { renderer: 'svg', container: c.curves, hover: true });
      await c.curvesView.runAsync();
    })
    .catch((e) => {
      c.plot.textContent = String(e);
    });
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
  if (v.holdout)
    c.logs.append(
      el(
        'pre',
        'holdout',
        'sealed holdout (' +
          v.holdout.stateDir +
          '): visible vs holdout\n' +
          (v.holdout.lines.join('\n') || '  no use yet'),
      ),
    );
}
const events = new EventSource('/events');
events.addEventListener('run', (e) => update(JSON.parse(e.data)));
events.addEventListener('gone', (e) => {
  const id = JSON.parse(e.data).id;
  const c = cards.get(id);
  if (c) {
    c.view?.finalize();
    c.root.remove();
    cards.delete(id);
  }
  emptyEl.hidden = cards.size > 0;
});
events.addEventListener('open', () => (document.body.dataset.connected = 'yes'));
events.addEventListener('error', () => (document.body.dataset.connected = 'no'));
`;
