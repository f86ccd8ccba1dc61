import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readJson, type Direction } from '@loop/core';
import { renderReportHtml } from './html.js';
import { renderPlotSvg } from './plot.js';
import { inferDirection, parseResults, type ResultsData } from './results.js';

/** Options of {@link writeReport}. */
export interface WriteReportOptions {
  /** The results.tsv to plot. */
  results: string;
  /** Where to write the SVG. @default none (unless no HTML is asked for: then `<results dir>/progress.svg`) */
  out?: string;
  /** Where to write the self-contained HTML page. @default none */
  html?: string;
  /** Which way scores improve. @default from `.loop/state.json` beside results.tsv, else guessed from the kept rows */
  direction?: Direction;
  /** The plot's title. @default `<metric> progress` */
  title?: string;
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
export async function resolveDirection(resultsPath: string, data: ResultsData, direction?: Direction): Promise<Direction> {
  if (direction) return direction;
  const state = (await readJson(join(dirname(resultsPath), '.loop', 'state.json')).catch(() => undefined)) as { direction?: unknown } | undefined;
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
  const data = parseResults(text, options.results);
  const direction = await resolveDirection(options.results, data, options.direction);
  const svg = await renderPlotSvg(data, { direction, ...(options.title ? { title: options.title } : {}) });
  const files: string[] = [];
  const out = options.out ?? (options.html ? undefined : join(dirname(options.results), 'progress.svg'));
  if (out) {
    await writeFile(out, svg);
    files.push(out);
  }
  if (options.html) {
    await writeFile(options.html, renderReportHtml(data, svg, { direction, source: options.results, ...(options.title ? { title: options.title } : {}) }));
    files.push(options.html);
  }
  return { data, direction, files };
}
