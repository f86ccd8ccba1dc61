import { LOG_STATUSES } from '../cli-constants.js';
import type { PlotPoint, PointKind, ResultsData } from '../report/results.js';
import { formatCost, formatMetrics, type RowMetrics } from './row-metrics.js';

/** The statuses `loop log --status` filters by (the plot's classes: kept, discarded, crashed, halted, baseline). */
export { LOG_STATUSES };

/** One line of `loop log --json`. */
export interface LogEntry {
  /** 0 for the baseline. */
  readonly iteration: number;
  /** The class: baseline, keep, discard, crash, halted. */
  readonly kind: PointKind;
  /** The status as written in results.tsv. */
  readonly status: string;
  /** The score, `null` for a crash or a row without one. */
  readonly score: number | null;
  /** The commit (auto-iterate) or snapshot (autoresearch), `''` when none. */
  readonly id: string;
  /** The row's description. */
  readonly description: string;
}

/** The rows of `data` whose class is one of `statuses` (all when empty). */
export function logEntries(data: ResultsData, statuses: readonly PointKind[] = []): LogEntry[] {
  const keep = (p: PlotPoint) => statuses.length === 0 || statuses.includes(p.kind);
  return data.points.filter(keep).map((p) => ({
    iteration: p.iteration,
    kind: p.kind,
    status: p.status,
    score: p.score,
    id: p.id,
    description: p.description,
  }));
}

/**
 * `loop log` text: one aligned line per row: iteration, status, score, id, description, then the
 * row's named metrics (`[rss_mb=84.5 ops_per_s=3000]`) and what the agent proposer reported its
 * candidate cost (`[cost $0.0123, 1,234 tokens]`) when it has them.
 */
export function formatLog(entries: readonly (LogEntry & Pick<RowMetrics, 'metrics' | 'cost'>)[]): string {
  if (entries.length === 0) return '(no rows)';
  const withMetrics = (e: (typeof entries)[number]) => {
    const m = formatMetrics(e.metrics);
    const c = formatCost(e.cost);
    return [e.description.replace(/[\t\r\n]+/g, ' '), m && `[${m}]`, c && `[cost ${c}]`].filter(Boolean).join('  ');
  };
  const cells = entries.map((e) => [
    String(e.iteration),
    e.status,
    e.score === null ? '-' : String(Number(e.score.toPrecision(8))),
    e.id.slice(0, 12) || '-',
    withMetrics(e),
  ]);
  const width = (i: number) => Math.max(...cells.map((c) => c[i]!.length));
  const [wi, wt, ws, wc] = [width(0), width(1), width(2), width(3)];
  return cells
    .map(([it, st, sc, id, d]) =>
      `${it!.padStart(wi)}  ${st!.padEnd(wt)}  ${sc!.padStart(ws)}  ${id!.padEnd(wc)}  ${d}`.trimEnd(),
    )
    .join('\n');
}

/** The rows as CSV (RFC 4180 quoting): iteration,status,score,id,description. */
export function toCsv(entries: readonly LogEntry[]): string {
  const q = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  return (
    [
      'iteration,status,score,id,description',
      ...entries.map((e) =>
        [String(e.iteration), e.status, e.score === null ? '' : String(e.score), e.id, e.description].map(q).join(','),
      ),
    ].join('\n') + '\n'
  );
}
