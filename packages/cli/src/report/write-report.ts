import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Direction } from '@loop/core';
import { readJson, readRecordData } from '@loop/core/files';
import { curveSeriesOf, renderCurvesSvg } from './curves-plot.js';
import { renderReportHtml } from './html.js';
import { renderMultiRunPlotSvg } from './multi-plot.js';
import { renderPlotSvg } from './plot.js';
import { inferDirection, parseResults, type ResultsData } from './results.js';

/** Options of {@link writeReport}. */
export interface WriteReportOptions {
  /** The results.tsv to plot. */
  results: string;
  /**
   * Where to write the SVG. @default none, unless no HTML is asked for: then `.loop/progress.svg`
   * in the run's workspace ({@link runDirOf}), a folder git never tracks, so a revert cannot delete it.
   */
  out?: string;
  /** Where to write the self-contained HTML page. @default none */
  html?: string;
  /** Which way scores improve. @default from `.loop/state.json` beside results.tsv, else guessed from the kept rows */
  direction?: Direction;
  /** The plot's title. @default `<metric> progress` */
  title?: string;
  /**
   * The metric's name on the axis, the title and the table. @default the run's `metricName` from `.loop/cli.json`, else
   * the score column's name
   */
  metric?: string;
}

/**
 * The workspace a results.tsv belongs to: the nearest folder at or above it that holds `.loop/`
 * (a target's run keeps results.tsv in the target's folder, `.loop/` at the workspace root),
 * stopping at the repository root; the results' own folder when there is none.
 */
export function runDirOf(resultsPath: string): string {
  const start = dirname(resultsPath);
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.loop'))) return dir;
    if (existsSync(join(dir, '.git')) || dirname(dir) === dir) return start;
  }
}

/** The metric name `loop run` recorded in `<dir>/.loop/cli.json`, if any. */
export async function recordedMetricName(dir: string): Promise<string | undefined> {
  const cli = (await readJson(join(dir, '.loop', 'cli.json')).catch(() => undefined)) as
    { metricName?: unknown } | undefined;
  return typeof cli?.metricName === 'string' && cli.metricName !== '' ? cli.metricName : undefined;
}

/** What {@link writeReport} wrote. */
export interface WrittenReport {
  /** The parsed results. */
  readonly data: ResultsData;
  /** The direction used. */
  readonly direction: Direction;
  /** The files written. */
  readonly files: readonly string[];
}

/** The direction of a run: the option, else state.json beside the results, else the form's, else a guess. */
export async function resolveDirection(
  resultsPath: string,
  data: ResultsData,
  direction?: Direction,
): Promise<Direction> {
  if (direction) return direction;
  const state = (await readJson(join(runDirOf(resultsPath), '.loop', 'state.json')).catch(() => undefined)) as
    { direction?: unknown } | undefined;
  if (state?.direction === 'minimize' || state?.direction === 'maximize') return state.direction;
  return data.direction ?? inferDirection(data.points);
}

/**
 * `loop report`: reads a results.tsv (either form) and writes the progress plot as SVG and/or a
 * self-contained HTML page with the table.
 *
 * @throws {LoopError} `RESULTS_CORRUPT` naming the line of a malformed file.
 */
export async function writeReport(options: WriteReportOptions): Promise<WrittenReport> {
  const text = await readFile(options.results, 'utf8');
  const runDir = runDirOf(options.results);
  const parsed = parseResults(text, options.results);
  const metric = options.metric ?? (await recordedMetricName(runDir)) ?? parsed.metric;
  const data: ResultsData = { ...parsed, metric };
  const direction = await resolveDirection(options.results, data, options.direction);
  const svg = await renderPlotSvg(data, { direction, ...(options.title ? { title: options.title } : {}) });
  // Each run's intermediate curve (issue 27), when the run recorded reports.
  const series = curveSeriesOf(data.points, await readRecordData(join(runDir, '.loop', 'records.jsonl')));
  const curves = series.length > 0 ? await renderCurvesSvg(series, { direction, metric }) : undefined;
  const files: string[] = [];
  const out = options.out ?? (options.html ? undefined : join(runDir, '.loop', 'progress.svg'));
  if (out) {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, svg);
    files.push(out);
    if (curves) {
      const curvesOut = out.replace(/(\.svg)?$/, '-curves.svg');
      await writeFile(curvesOut, curves);
      files.push(curvesOut);
    }
  }
  if (options.html) {
    await writeFile(
      options.html,
      renderReportHtml(data, svg, {
        direction,
        source: options.results,
        ...(options.title ? { title: options.title } : {}),
        ...(curves ? { curvesSvg: curves } : {}),
      }),
    );
    files.push(options.html);
  }
  return { data, direction, files };
}

/** Options of {@link writeMultiRunReport}. */
export interface WriteMultiRunReportOptions {
  /** The runs: each results.tsv (either form) and its legend label. */
  runs: ReadonlyArray<{ results: string; label: string }>;
  /** Where to write the SVG. @default `.loop/progress-runs.svg` in the first run's workspace */
  out?: string;
  /** Which way scores improve. @default the first run's (see {@link resolveDirection}) */
  direction?: Direction;
  /** The title. @default `<metric> across <n> runs` */
  title?: string;
  /** The metric name. @default the first run's recorded metricName, else its score column */
  metric?: string;
}

/**
 * `loop report a/results.tsv b/results.tsv ...`: several runs on one plot ({@link renderMultiRunPlotSvg}).
 *
 * @throws {LoopError} `RESULTS_CORRUPT` naming the line of a malformed file.
 */
export async function writeMultiRunReport(
  options: WriteMultiRunReportOptions,
): Promise<{ readonly files: readonly string[]; readonly direction: Direction }> {
  const runs = await Promise.all(
    options.runs.map(async (r) => ({
      label: r.label,
      data: parseResults(await readFile(r.results, 'utf8'), r.results),
      results: r.results,
    })),
  );
  const first = runs[0]!;
  const direction = await resolveDirection(first.results, first.data, options.direction);
  const metric = options.metric ?? (await recordedMetricName(runDirOf(first.results))) ?? first.data.metric;
  const svg = await renderMultiRunPlotSvg(runs, {
    direction,
    metric,
    ...(options.title ? { title: options.title } : {}),
  });
  const out = options.out ?? join(runDirOf(first.results), '.loop', 'progress-runs.svg');
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, svg);
  return { files: [out], direction };
}
