import type { Direction } from '@loop/core';
import { plotFrame } from './plot-frame.js';
import { parse, View, type Spec } from 'vega';
import { selectLabels } from './plot-labels.js';
import { countPoints, countsText, formatScore } from './plot-summary.js';
import { runningBest, type ResultsData } from './results.js';

/** Options of {@link plotSpec} and {@link renderPlotSvg}. */
export interface PlotOptions {
  /** Which way scores improve. */
  direction: Direction;
  /** The title's first part. @default `<metric> progress` */
  title?: string;
  /** Plot width in px (the drawing area). @default 900 */
  width?: number;
  /** Plot height in px (the drawing area). @default 420 */
  height?: number;
  /** Longest label of a kept point, in characters. @default 48 */
  labelChars?: number;
  /**
   * The most kept points labelled with their description; fewer when labels would overlap
   * ({@link selectLabels}). Every dot keeps its tooltip. @default 12
   */
  maxLabels?: number;
}

/** The colours of the plot. */
export const PLOT_COLORS = {
  discard: '#b0b0b0',
  keep: '#1a9850',
  baseline: '#2166ac',
  crash: '#d73027',
  halted: '#7b3294',
  best: '#1a9850',
} as const;

/**
 * The Vega spec of the progress plot: every experiment a dot (discarded grey, kept and the
 * baseline highlighted, crashes as red crosses along the bottom, halted rows as purple diamonds
 * at their score or along the bottom), the running best as a step line, the kept points that stay
 * readable labelled with their short description (at most `maxLabels`, none overlapping: see
 * {@link selectLabels}; every dot has its description as a tooltip), the counts in the title.
 *
 * The marks are named, so the SVG's groups carry these class names: `bestLine`, `discardDots`,
 * `crashMarks`, `haltedMarks`, `keptDots` (the baseline and the keeps), `keptLabels`.
 */
export function plotSpec(data: ResultsData, options: PlotOptions): Spec {
  const { points, metric } = data;
  const width = options.width ?? 900;
  const height = options.height ?? 420;
  const labelChars = options.labelChars ?? 48;
  const best = runningBest(points, options.direction);
  const scored = points.filter((p) => p.score !== null);
  const c = countPoints(points);
  const scores = scored.map((p) => p.score as number);
  const frame = plotFrame(scores, Math.max(0, ...points.map((p) => p.iteration)), metric, options.direction);
  const { arrow } = frame;
  // Only the labels that stay readable (no two overlapping, at most maxLabels); the rest are on hover.
  const labelled = new Set(
    selectLabels(
      scored.flatMap((p) =>
        p.kind === 'keep' || p.kind === 'baseline'
          ? [
              {
                iteration: p.iteration,
                score: p.score as number,
                kind: p.kind,
                text: p.kind === 'baseline' ? 'baseline' : p.description,
              },
            ]
          : [],
      ),
      {
        direction: options.direction,
        width,
        height,
        xDomain: frame.x.domain as [number, number],
        yDomain: frame.y.domain as [number, number],
        labelChars,
        ...(options.maxLabels !== undefined ? { maxLabels: options.maxLabels } : {}),
      },
    ),
  );
  const rows = points.map((p, i) => ({
    iteration: p.iteration,
    score: p.score,
    kind: p.kind,
    description: p.description,
    best: best[i] ?? null,
    label: labelled.has(p.iteration) && (p.kind === 'keep' || p.kind === 'baseline'),
  }));
  // Room between the title and the plot for the drawn labels that rise above the plot's top:
  // a label starts 6 px above its dot and climbs at 35 degrees (10 px text: about 5.6 px per character,
  // sin 35 of it upwards, plus its own height). Only labels near the top need room, so a run whose
  // long labels sit low gets no empty band. The dot's height is taken on the domain before Vega's
  // nice rounding, which only widens it (the dot ends lower): the room is never too small.
  const [yLo, yHi] = frame.yDomain;
  const dotY = (score: number) => (yHi > yLo ? (height * (yHi - score)) / (yHi - yLo) : height / 2);
  const labelText = (p: (typeof scored)[number]) =>
    p.kind === 'baseline' ? 'baseline' : p.description.slice(0, labelChars);
  const reach = scored
    .filter((p) => (p.kind === 'keep' || p.kind === 'baseline') && labelled.has(p.iteration))
    .map((p) => labelText(p).length * 5.6 * Math.sin((35 * Math.PI) / 180) + 6 + 10 - dotY(p.score as number));
  const titleOffset = Math.min(110, Math.round(12 + Math.max(0, ...reach)));
  const title = `${options.title ?? `${metric} progress`}: ${c.experiments} experiments, ${countsText(c)}`;
  const legend = ['baseline', 'kept', 'discarded', 'crash', ...(c.halted > 0 ? ['halted'] : []), 'running best'];
  const legendColors: Record<string, string> = {
    baseline: PLOT_COLORS.baseline,
    kept: PLOT_COLORS.keep,
    discarded: PLOT_COLORS.discard,
    crash: PLOT_COLORS.crash,
    halted: PLOT_COLORS.halted,
    'running best': PLOT_COLORS.best,
  };
  const subtitle =
    scores.length === 0
      ? 'no scored experiments (every row crashed)'
      : `${arrow}; best ${formatScore(best.at(-1) ?? 0)}`;
  return {
    ...frame.header,
    width,
    height,
    title: { text: title, subtitle, anchor: 'start', fontSize: 15, subtitleFontSize: 12, offset: titleOffset },
    data: [
      { name: 'rows', values: rows },
      { name: 'scored', source: 'rows', transform: [{ type: 'filter', expr: 'datum.score !== null' }] },
      { name: 'discarded', source: 'scored', transform: [{ type: 'filter', expr: "datum.kind === 'discard'" }] },
      {
        name: 'kept',
        source: 'scored',
        transform: [{ type: 'filter', expr: "datum.kind === 'keep' || datum.kind === 'baseline'" }],
      },
      { name: 'labelled', source: 'kept', transform: [{ type: 'filter', expr: 'datum.label' }] },
      { name: 'crashes', source: 'rows', transform: [{ type: 'filter', expr: "datum.kind === 'crash'" }] },
      { name: 'halts', source: 'rows', transform: [{ type: 'filter', expr: "datum.kind === 'halted'" }] },
      { name: 'best', source: 'rows', transform: [{ type: 'filter', expr: 'datum.best !== null' }] },
    ],
    scales: [
      frame.x,
      frame.y,
      {
        name: 'legend',
        type: 'ordinal',
        domain: legend,
        range: legend.map((l) => legendColors[l]!),
      },
    ],
    axes: [...frame.axes],
    legends: [
      {
        fill: 'legend',
        orient: 'top-right',
        direction: 'horizontal',
        // Each entry drawn like its marks: dots, a cross for crashes, a line for the running best.
        encode: {
          symbols: {
            update: {
              shape: {
                signal:
                  "datum.value === 'running best' ? 'stroke' : datum.value === 'crash' ? " +
                  "'cross' : datum.value === 'halted' ? 'diamond' : 'circle'",
              },
              angle: { signal: "datum.value === 'crash' ? 45 : 0" },
              stroke: { signal: `datum.value === 'running best' ? '${PLOT_COLORS.best}' : null` },
              strokeWidth: { signal: "datum.value === 'running best' ? 2 : 0" },
            },
          },
        },
      },
    ],
    marks: [
      {
        type: 'line',
        name: 'bestLine',
        from: { data: 'best' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'iteration' },
            y: { scale: 'y', field: 'best' },
            stroke: { value: PLOT_COLORS.best },
            strokeWidth: { value: 2 },
            strokeOpacity: { value: 0.7 },
            interpolate: { value: 'step-after' },
          },
        },
      },
      {
        type: 'symbol',
        name: 'discardDots',
        from: { data: 'discarded' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'iteration' },
            y: { scale: 'y', field: 'score' },
            size: { value: points.length > 1000 ? 12 : 30 },
            fill: { value: PLOT_COLORS.discard },
            fillOpacity: { value: 0.7 },
            tooltip: { signal: "'#' + datum.iteration + ' ' + datum.description" },
          },
        },
      },
      {
        type: 'symbol',
        name: 'crashMarks',
        from: { data: 'crashes' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'iteration' },
            y: { signal: 'height' },
            shape: { value: 'cross' },
            angle: { value: 45 },
            size: { value: 40 },
            fill: { value: PLOT_COLORS.crash },
            tooltip: { signal: "'#' + datum.iteration + ' crash: ' + datum.description" },
          },
        },
      },
      {
        type: 'symbol',
        name: 'haltedMarks',
        from: { data: 'halts' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'iteration' },
            y: { signal: "datum.score !== null ? scale('y', datum.score) : height" },
            shape: { value: 'diamond' },
            size: { value: 80 },
            fill: { value: PLOT_COLORS.halted },
            tooltip: { signal: "'#' + datum.iteration + ' halted: ' + datum.description" },
          },
        },
      },
      {
        type: 'symbol',
        name: 'keptDots',
        from: { data: 'kept' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'iteration' },
            y: { scale: 'y', field: 'score' },
            size: { value: 70 },
            fill: { signal: `datum.kind === 'baseline' ? '${PLOT_COLORS.baseline}' : '${PLOT_COLORS.keep}'` },
            stroke: { value: 'white' },
            strokeWidth: { value: 1 },
            tooltip: { signal: "'#' + datum.iteration + ' ' + datum.description" },
          },
        },
      },
      {
        type: 'text',
        name: 'keptLabels',
        from: { data: 'labelled' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'iteration', offset: 4 },
            y: { scale: 'y', field: 'score', offset: -6 },
            text: {
              signal:
                `datum.kind === 'baseline' ? 'baseline' : (length(datum.description) ` +
                `> ${labelChars} ? slice(datum.description, 0, ${labelChars - 1}) + '…' : ` +
                `datum.description)`,
            },
            angle: { value: -35 },
            fontSize: { value: 10 },
            fill: { value: '#333333' },
            align: { value: 'left' },
            baseline: { value: 'bottom' },
          },
        },
      },
    ],
  };
}

/** Renders the progress plot to an SVG string, on the server, without a canvas (Vega's SVG string renderer). */
export async function renderPlotSvg(data: ResultsData, options: PlotOptions): Promise<string> {
  const view = new View(parse(plotSpec(data, options)), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
