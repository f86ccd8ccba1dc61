import { readIterationTimes } from '../iteration-times.js';
import type { ResultsData } from '../report/results.js';
import { logEntries, type LogEntry } from './log.js';
import { readRowParams, type ParamValue } from './row-params.js';
import type { RowViolation } from './row-metrics.js';

/**
 * One row of `loop report --format json`: the `loop log --json` row plus when it started, how long
 * it took, its named metrics and the parameters its candidate was evaluated with (one object per
 * row, like Optuna's `trials_dataframe()`; `pandas.json_normalize` flattens `params` and `metrics`).
 */
export interface ExportRow extends LogEntry {
  /** When the iteration started, ISO 8601 UTC; `null` when the run wrote no timing (`.loop/iterations.jsonl`). */
  readonly startedAt: string | null;
  /** Wall time of the iteration (proposal, attempts, evaluation, decision), seconds; `null` when unknown. */
  readonly durationS: number | null;
  /** The evaluation's run time, seconds; `null` when unknown. */
  readonly runS: number | null;
  /** What the agent proposer reported this candidate cost, US dollars (`data.cost.usd`); `null` when unknown. */
  readonly costUsd: number | null;
  /** The tokens it reported (`data.cost.tokens`); `null` when unknown. */
  readonly tokens: number | null;
  /** The candidate's parameters (`proposer.space` keys of a tpe or mutator proposer), `{}` for none. */
  readonly params: Readonly<Record<string, ParamValue>>;
  /** Named metrics of the run (the scorer's dimensions and its `data.metrics`), `{}` for none. */
  readonly metrics: Readonly<Record<string, number>>;
  /** The constraints the row broke (issue 28; CSV column `violations`), `[]` for none. */
  readonly violations: readonly RowViolation[];
}

/** The rows of one run with their columns: parameter and metric names in column order. */
export interface ExportTable {
  readonly rows: readonly ExportRow[];
  /** Parameter names (CSV columns `params_<name>`). */
  readonly paramNames: readonly string[];
  /** Metric names (CSV columns `metrics_<name>`). */
  readonly metricNames: readonly string[];
}

/**
 * The rows of a run as data: results.tsv's rows, the timing sidecar of the workspace `dir`
 * (`.loop/iterations.jsonl`, written by `loop run` / `loop resume`) and each candidate's
 * parameters from git (see {@link readRowParams}). Never throws for a missing sidecar or config:
 * those columns are empty.
 */
export async function exportTable(dir: string, data: ResultsData): Promise<ExportTable> {
  const entries = logEntries(data);
  const noParams = { names: [], byIteration: new Map<number, Record<string, ParamValue>>() };
  const [times, params] = await Promise.all([
    readIterationTimes(dir),
    data.form === 'auto-iterate' ? readRowParams(dir, entries) : noParams,
  ]);
  const metricNames = [...new Set([...times.values()].flatMap((t) => Object.keys(t.metrics ?? {})))].sort();
  const rows = entries.map((e): ExportRow => {
    const t = times.get(e.iteration);
    // A timing line of another attempt at this iteration (a resume re-ran it) describes another row.
    const same = t !== undefined && (t.score === e.score || (t.score === null && e.score === null));
    return {
      ...e,
      startedAt: same ? t.startedAt : null,
      durationS: same ? t.durationS : null,
      runS: same ? (t.runS ?? null) : null,
      costUsd: same ? (t.data?.cost?.usd ?? null) : null,
      tokens: same ? (t.data?.cost?.tokens ?? null) : null,
      params: params.byIteration.get(e.iteration) ?? {},
      metrics: same ? { ...t.metrics } : {},
      violations: same ? ((t.data?.constraints as { violations?: RowViolation[] } | undefined)?.violations ?? []) : [],
    };
  });
  return { rows, paramNames: params.names, metricNames };
}

const quote = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
const cell = (v: ParamValue | number | undefined) => (v === null || v === undefined ? '' : String(v));

/**
 * The CSV header of {@link exportCsv}: these columns in this order, comma-separated,
 * `iteration`, `status`, `score`, `id`, `description`, `started_at`, `duration_s`, `run_s`, `cost_usd`,
 * `tokens`, `params_<p>...`, `metrics_<m>...`, and last (optional) `violations`
 * (`cost_usd` and `tokens`: what an agent proposer reported the candidate cost, empty when unknown;
 * `violations`, only when a row broke a constraint: `; `-separated, each `<constraint> by <amount>`).
 */
export function exportHeader(
  paramNames: readonly string[],
  metricNames: readonly string[],
  violations = false,
): string[] {
  const fixed = [
    'iteration',
    'status',
    'score',
    'id',
    'description',
    'started_at',
    'duration_s',
    'run_s',
    'cost_usd',
    'tokens',
  ];
  return [
    ...fixed,
    ...paramNames.map((p) => `params_${p}`),
    ...metricNames.map((m) => `metrics_${m}`),
    ...(violations ? ['violations'] : []),
  ];
}

/** One row's CSV cells, in {@link exportHeader}'s order. */
export function exportCells(
  r: ExportRow,
  paramNames: readonly string[],
  metricNames: readonly string[],
  violations = false,
): string[] {
  return [
    String(r.iteration),
    r.status,
    cell(r.score),
    r.id,
    r.description,
    r.startedAt ?? '',
    cell(r.durationS),
    cell(r.runS),
    cell(r.costUsd ?? undefined),
    cell(r.tokens ?? undefined),
    ...paramNames.map((p) => cell(r.params[p])),
    ...metricNames.map((m) => cell(r.metrics[m])),
    ...(violations
      ? [
          r.violations
            .map((v) => `${v.mode === 'advisory' ? 'advisory: ' : ''}${v.constraint} by ${v.violation ?? 'missing'}`)
            .join('; '),
        ]
      : []),
  ];
}

/** The rows as CSV (RFC 4180 quoting), one column per parameter and metric; `''` for an unknown value. */
export function exportCsv(table: ExportTable): string {
  const { paramNames, metricNames } = table;
  const v = table.rows.some((r) => r.violations.length > 0);
  const body = table.rows.map((r) => exportCells(r, paramNames, metricNames, v));
  const lines = [exportHeader(paramNames, metricNames, v), ...body];
  return lines.map((l) => l.map(quote).join(',')).join('\n') + '\n';
}

/** Several runs as one CSV with a leading `run` column; the parameter and metric columns are the union of the runs'. */
export function exportMultiCsv(runs: readonly { readonly run: string; readonly table: ExportTable }[]): string {
  const union = (pick: (t: ExportTable) => readonly string[]) => [...new Set(runs.flatMap((r) => pick(r.table)))];
  const params = union((t) => t.paramNames);
  const metrics = union((t) => t.metricNames).sort();
  const v = runs.some((r) => r.table.rows.some((row) => row.violations.length > 0));
  const body = runs.flatMap((r) => r.table.rows.map((row) => [r.run, ...exportCells(row, params, metrics, v)]));
  const lines = [['run', ...exportHeader(params, metrics, v)], ...body];
  return lines.map((l) => l.map(quote).join(',')).join('\n') + '\n';
}
