/**
 * The row part of the dashboard's browser script (see {@link CLIENT}): the table of a run's rows, 20 a page,
 * newest first, filtered by class, and the buttons that show an iteration's diff or kept run log.
 */
export const ROWS_SCRIPT = String.raw`
async function showDiff(c, v, iteration) {
  c.diff.hidden = false;
  c.diff.dataset.kind = 'diff';
  c.diff.textContent = 'loading the diff of iteration ' + iteration + '...';
  const res = await fetch(runPath(v) + '/diff/' + iteration);
  const body = await res.json();
  c.diff.textContent = res.ok
    ? 'iteration ' +
      body.iteration +
      '  ' +
      body.status +
      '  ' +
      body.description +
      '  (' +
      body.ref +
      ')\n' +
      body.patch
    : body.error;
}
async function showLog(c, v, iteration) {
  c.diff.hidden = false;
  c.diff.dataset.kind = 'log';
  c.diff.textContent = 'loading the log of iteration ' + iteration + '...';
  const res = await fetch(runPath(v) + '/log/' + iteration);
  const body = await res.json();
  c.diff.textContent = res.ok
    ? 'iteration ' +
      body.iteration +
      '  run output' +
      (body.truncated ? ' (its end)' : '') +
      '  (' +
      body.path +
      ')\n' +
      body.text
    : body.error;
}
// The rows of the current filter, ascending, and the page's end (exclusive): the newest page unless
// the user paged back (c.top: the newest iteration shown), which stays put as rows land.
function pageOf(c) {
  const list = c.filter === 'all' ? c.v.rows : c.v.rows.filter((r) => r.kind === c.filter);
  let end = list.length;
  if (c.top !== null) {
    end = list.findIndex((r) => r.iteration > c.top);
    if (end < 0) end = list.length;
  }
  return { list, end, start: Math.max(0, end - PAGE_ROWS) };
}
function page(c, dir) {
  const { list, start, end } = pageOf(c);
  if (dir < 0 && start > 0) c.top = list[start - 1].iteration;
  if (dir > 0) {
    const e = Math.min(list.length, end + PAGE_ROWS);
    c.top = e >= list.length ? null : list[e - 1].iteration;
  }
  renderRows(c);
}
function renderRows(c) {
  const v = c.v;
  const { list, start, end } = pageOf(c);
  const kept = new Set(v.keptLogs || []);
  c.older.disabled = start === 0;
  c.newer.disabled = end >= list.length;
  c.position.textContent =
    list.length === 0
      ? ' no rows'
      : ' rows ' +
        (list.length - end + 1) +
        '\u2013' +
        (list.length - start) +
        ' of ' +
        list.length +
        ' (newest first)';
  c.pickDiff.hidden = v.form !== 'auto-iterate';
  c.table.textContent = '';
  const head = el('tr');
  const costs = v.rows.some((r) => r.costUsd !== undefined || r.tokens !== undefined);
  for (const h of ['iteration', 'status', v.metric, ...(costs ? ['cost'] : []), 'description', ''])
    head.append(el('th', '', h));
  c.table.append(head);
  for (const r of list.slice(start, end).reverse()) {
    const tr = el('tr', r.kind);
    tr.dataset.iteration = String(r.iteration);
    tr.append(
      el('td', '', String(r.iteration)),
      el('td', '', r.status),
      el('td', 'num', r.score === null ? '-' : fmt(r.score)),
    );
    if (costs)
      tr.append(
        el(
          'td',
          'num cost',
          [
            r.costUsd !== undefined ? '$' + r.costUsd.toFixed(4) : '',
            r.tokens !== undefined ? r.tokens.toLocaleString('en-US') + ' tok' : '',
          ]
            .filter(Boolean)
            .join(' ') || '-',
        ),
      );
    tr.append(el('td', '', r.description));
    // Named metrics (issue 28), after the description: rss_mb=84.5 ops_per_s=3000.
    if (r.metrics)
      tr.lastChild.append(
        el(
          'span',
          'metrics',
          '  [' +
            Object.keys(r.metrics)
              .sort()
              .map((k) => k + '=' + fmt(r.metrics[k]))
              .join(' ') +
            ']',
        ),
      );
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
`;
