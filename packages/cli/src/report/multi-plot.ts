import type { Direction } from '@loop/core';
import { plotFrame } from './plot-frame.js';
import { parse, View, type Spec } from 'vega';
import { formatScore } from './plot-summary.js';
import { runningBest, type ResultsData } from './results.js';

/** One run of a multi-run plot: its label (the legend entry) and its parsed results. */
export interface PlotRun {
  /** The legend entry, e.g. the run's folder name. */
  readonly label: string;
  /** The parsed results.tsv. */
  readonly data: ResultsData;
}

/** Options of {@link multiRunPlotSpec}. */
export interface MultiRunPlotOptions {
  /** Which way scores improve (the same for every run). */
  direction: Direction;
  /** The metric name on the axis. @default the first run's metric */
  metric?: string;
  /** The title. @default `<metric> across <n> runs` */
  title?: string;
  /** Drawing width in px. @default 900 */
  width?: number;
  /** Drawing height in px. @default 420 */
  height?: number;
}

/**
 * The Vega spec of several runs on one plot: each run a colour (the legend names them), its
 * experiments as dots (kept ones larger), its running best as a step line; crashes are not drawn
 * (they have no score). The mark groups are named `runBestLines` and `runDots`.
 */
export function multiRunPlotSpec(runs: readonly PlotRun[], options: MultiRunPlotOptions): Spec {
  const width = options.width ?? 900;
  const height = options.height ?? 420;
  const metric = options.metric ?? runs[0]?.data.metric ?? 'score';
  const rows = runs.flatMap((r) => {
    const best = runningBest(r.data.points, options.direction);
    return r.data.points.map((p, i) => ({
      run: r.label,
      iteration: p.iteration,
      score: p.score,
      kept: p.kind === 'keep' || p.kind === 'baseline',
      best: best[i] ?? null,
    }));
  });
  const scores = rows.filter((r) => r.score !== null).map((r) => r.score as number);
  const frame = plotFrame(scores, Math.max(0, ...rows.map((r) => r.iteration)), metric, options.direction);
  const { arrow } = frame;
  const bests = runs.map((r) => {
    const b = runningBest(r.data.points, options.direction)
      .filter((x): x is number => x !== null)
      .at(-1);
    return `${r.label} ${b === undefined ? '-' : formatScore(b)}`;
  });
  return {
    ...frame.header,
    width,
    height,
    title: {
      text: options.title ?? `${metric} across ${runs.length} runs`,
      subtitle: `${arrow}; best: ${bests.join(', ')}`,
      anchor: 'start',
      fontSize: 15,
      subtitleFontSize: 12,
    },
    data: [
      { name: 'rows', values: rows },
      { name: 'scored', source: 'rows', transform: [{ type: 'filter', expr: 'datum.score !== null' }] },
      { name: 'best', source: 'rows', transform: [{ type: 'filter', expr: 'datum.best !== null' }] },
    ],
    scales: [frame.x, frame.y, { name: 'color', type: 'ordinal', domain: runs.map((r) => r.label), range: 'category' }],
    axes: [...frame.axes],
    legends: [{ fill: 'color', orient: 'top-right', direction: 'horizontal', title: 'run' }],
    marks: [
      {
        type: 'group',
        name: 'runBestLines',
        from: { facet: { name: 'runBest', data: 'best', groupby: 'run' } },
        marks: [
          {
            type: 'line',
            from: { data: 'runBest' },
            encode: {
              enter: {
                x: { scale: 'x', field: 'iteration' },
                y: { scale: 'y', field: 'best' },
                stroke: { scale: 'color', field: 'run' },
                strokeWidth: { value: 2 },
                interpolate: { value: 'step-after' },
              },
            },
          },
        ],
      },
      {
        type: 'symbol',
        name: 'runDots',
        from: { data: 'scored' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'iteration' },
            y: { scale: 'y', field: 'score' },
            size: { signal: 'datum.kept ? 60 : 20' },
            fill: { scale: 'color', field: 'run' },
            fillOpacity: { signal: 'datum.kept ? 1 : 0.45' },
            tooltip: { signal: "datum.run + ' #' + datum.iteration + ': ' + datum.score" },
          },
        },
      },
    ],
  };
}

/** Renders {@link multiRunPlotSpec} to an SVG string (Vega's server-side SVG renderer). */
export async function renderMultiRunPlotSvg(runs: readonly PlotRun[], options: MultiRunPlotOptions): Promise<string> {
  const view = new View(parse(multiRunPlotSpec(runs, options)), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
