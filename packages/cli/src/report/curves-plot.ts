import type { CandidateData, Direction } from '@loop/core';
import { parse, View, type Spec } from 'vega';
import { PLOT_COLORS } from './plot.js';
import type { PlotPoint } from './results.js';

/** One run's curve on the curves plot: its intermediate reports and what became of it. */
export interface CurveSeries {
  /** The row's iteration. */
  readonly iteration: number;
  /**
   * kept (or the baseline), pruned (stopped early: its curve ends with a square), or discarded (ran to its end, not
   * kept).
   */
  readonly kind: 'kept' | 'pruned' | 'discarded';
  /** The reports, in step order; non-finite values are left out. */
  readonly points: readonly { readonly step: number; readonly value: number }[];
}

/**
 * Each row's curve (its record's `data.reports`, issue 27) with what became of it, from the rows
 * of a results.tsv and the records by iteration (`.loop/records.jsonl`); rows without reports are
 * left out, so a run without intermediate reports has no curves.
 */
export function curveSeriesOf(
  points: readonly PlotPoint[],
  records: ReadonlyMap<number, CandidateData>,
): CurveSeries[] {
  const out: CurveSeries[] = [];
  for (const p of points) {
    const data = records.get(p.iteration);
    const reports = (data?.reports ?? []).filter((r) => Number.isFinite(r.value) && Number.isFinite(r.step));
    if (reports.length === 0) continue;
    const kind = p.kind === 'keep' || p.kind === 'baseline' ? 'kept' : data?.pruned ? 'pruned' : 'discarded';
    out.push({ iteration: p.iteration, kind, points: reports.map((r) => ({ step: r.step, value: r.value })) });
  }
  return out;
}

/**
 * The Vega spec of the curves plot: every run's intermediate value against its step, kept runs
 * (the incumbents' curves, the ones a pruner compares with) in green, runs that went to their end
 * and were discarded in grey, pruned runs in orange ending with a square where they were stopped.
 */
export function curvesPlotSpec(
  series: readonly CurveSeries[],
  options: { direction: Direction; metric: string; width?: number; height?: number },
): Spec {
  const values = series.flatMap((s) =>
    s.points.map((p, i) => ({
      iteration: s.iteration,
      kind: s.kind,
      step: p.step,
      value: p.value,
      last: i === s.points.length - 1,
    })),
  );
  const pruned = series.filter((s) => s.kind === 'pruned').length;
  // Pruned is not a crash: its own colour, and a square where the run was stopped.
  const colors = { kept: PLOT_COLORS.keep, discarded: PLOT_COLORS.discard, pruned: '#e08214' };
  const better = options.direction === 'minimize' ? 'lower is better' : 'higher is better';
  return {
    $schema: 'https://vega.github.io/schema/vega/v5.json',
    width: options.width ?? 900,
    height: options.height ?? 360,
    padding: { left: 10, right: 20, top: 10, bottom: 10 },
    background: 'white',
    title: {
      text: `${options.metric} curves: ${series.length} runs, ${pruned} pruned`,
      subtitle: `intermediate reports by step (${better})`,
      anchor: 'start',
      fontSize: 15,
      subtitleFontSize: 12,
    },
    data: [
      { name: 'points', values },
      {
        name: 'ends',
        source: 'points',
        transform: [{ type: 'filter', expr: "datum.last && datum.kind === 'pruned'" }],
      },
    ],
    scales: [
      { name: 'x', type: 'linear', domain: { data: 'points', field: 'step' }, range: 'width', nice: true, zero: false },
      {
        name: 'y',
        type: 'linear',
        domain: { data: 'points', field: 'value' },
        range: 'height',
        nice: true,
        zero: false,
      },
      {
        name: 'color',
        type: 'ordinal',
        domain: ['kept', 'discarded', 'pruned'],
        range: [colors.kept, colors.discarded, colors.pruned],
      },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: 'step' },
      { orient: 'left', scale: 'y', title: options.metric },
    ],
    legends: [{ stroke: 'color', orient: 'top-right', direction: 'horizontal', symbolType: 'stroke' }],
    marks: [
      {
        type: 'group',
        from: { facet: { name: 'curve', data: 'points', groupby: ['iteration', 'kind'] } },
        marks: [
          {
            type: 'line',
            from: { data: 'curve' },
            sort: { field: 'datum.step' },
            encode: {
              enter: {
                x: { scale: 'x', field: 'step' },
                y: { scale: 'y', field: 'value' },
                stroke: { scale: 'color', field: 'kind' },
                strokeWidth: { signal: "datum.kind === 'kept' ? 2 : 1" },
                strokeOpacity: { signal: "datum.kind === 'discarded' ? 0.6 : 0.9" },
              },
            },
          },
        ],
      },
      {
        type: 'symbol',
        from: { data: 'ends' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'step' },
            y: { scale: 'y', field: 'value' },
            shape: { value: 'square' },
            size: { value: 40 },
            fill: { value: colors.pruned },
            tooltip: { signal: "'iteration ' + datum.iteration + ': pruned at step ' + datum.step" },
          },
        },
      },
    ],
  };
}

/** Renders {@link curvesPlotSpec} to an SVG string (Vega's server-side SVG renderer). */
export async function renderCurvesSvg(
  series: readonly CurveSeries[],
  options: { direction: Direction; metric: string },
): Promise<string> {
  const view = new View(parse(curvesPlotSpec(series, options)), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
