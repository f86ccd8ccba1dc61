import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type IterationRecord } from '@loop/core';
import { paretoFront, type ObjectiveSpec, type ParetoPoint } from '@loop/core/policies';
import { parse, View, type Spec } from 'vega';
import { readIterationTimes } from '../iteration-times.js';
import { UsageError } from '../usage-error.js';
import { PLOT_COLORS } from './plot.js';
import { runDirOf } from './write-report.js';
import { parseResults, type PlotPoint } from './results.js';

/**
 * The objectives of `loop report --pareto`: `metric:min,metric:max` (also `minimize`/`maximize`),
 * at least two.
 *
 * @throws {UsageError} naming the part that is not `name:min|max`.
 */
export function parseObjectives(text: string): ObjectiveSpec[] {
  const out = text.split(',').map((part) => {
    const m = /^\s*([^:\s]+)\s*:\s*(min|max|minimize|maximize)\s*$/.exec(part);
    if (!m)
      throw new UsageError(
        `--pareto: "${part}" is not metric:min or metric:max (e.g. --pareto latency_ms:min,accuracy:max)`,
      );
    return { metric: m[1]!, direction: m[2]!.startsWith('min') ? ('minimize' as const) : ('maximize' as const) };
  });
  if (out.length < 2)
    throw new UsageError('--pareto needs at least two objectives (e.g. --pareto latency_ms:min,accuracy:max)');
  return out;
}

/** One evaluated state of the plot: its iteration, objective values and whether it is on the front. */
interface Dot {
  readonly iteration: number;
  readonly x: number;
  readonly y: number;
  readonly front: boolean;
  readonly incumbent: boolean;
  readonly description: string;
}

/** The rows of a results.tsv with their sidecar metrics (`.loop/iterations.jsonl`), as the engine's records. */
function recordsOf(
  points: readonly PlotPoint[],
  metrics: Map<number, Readonly<Record<string, number>>>,
): IterationRecord[] {
  const status = { baseline: 'baseline', keep: 'kept', discard: 'reverted', crash: 'crash', halted: 'halted' } as const;
  return points.map((p) => ({
    iteration: p.iteration,
    candidateId: p.id,
    score: p.score,
    status: status[p.kind],
    description: p.description,
    data: { metrics: metrics.get(p.iteration) ?? {} },
  }));
}

/**
 * The Vega spec of the front: every evaluated state a grey dot, the front's states green and joined
 * by a step line, the incumbent ringed.
 */
export function paretoSpec(dots: readonly Dot[], objectives: readonly ObjectiveSpec[], title: string): Spec {
  const axis = (o: ObjectiveSpec) => `${o.metric} (${o.direction === 'minimize' ? 'lower' : 'higher'} is better)`;
  const front = dots.filter((d) => d.front).sort((a, b) => a.x - b.x);
  return {
    $schema: 'https://vega.github.io/schema/vega/v6.json',
    width: 640,
    height: 420,
    padding: { left: 10, right: 30, top: 10, bottom: 10 },
    background: 'white',
    title: { text: title, anchor: 'start', fontSize: 13 },
    data: [
      { name: 'dots', values: dots.filter((d) => !d.front) as never },
      { name: 'front', values: front as never },
      { name: 'incumbent', values: dots.filter((d) => d.incumbent) as never },
    ],
    scales: [
      {
        name: 'x',
        type: 'linear',
        domain: {
          fields: [
            { data: 'dots', field: 'x' },
            { data: 'front', field: 'x' },
          ],
        },
        range: 'width',
        nice: true,
        zero: false,
      },
      {
        name: 'y',
        type: 'linear',
        domain: {
          fields: [
            { data: 'dots', field: 'y' },
            { data: 'front', field: 'y' },
          ],
        },
        range: 'height',
        nice: true,
        zero: false,
      },
    ],
    axes: [
      { orient: 'bottom', scale: 'x', title: axis(objectives[0]!), grid: true, gridOpacity: 0.25 },
      { orient: 'left', scale: 'y', title: axis(objectives[1]!), grid: true, gridOpacity: 0.25 },
    ],
    marks: [
      {
        type: 'line',
        name: 'frontLine',
        from: { data: 'front' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'x' },
            y: { scale: 'y', field: 'y' },
            stroke: { value: PLOT_COLORS.keep },
            strokeWidth: { value: 1.5 },
            interpolate: { value: objectives[0]!.direction === 'minimize' ? 'step-after' : 'step-before' },
          },
        },
      },
      {
        type: 'symbol',
        name: 'dominatedDots',
        from: { data: 'dots' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'x' },
            y: { scale: 'y', field: 'y' },
            size: { value: 40 },
            fill: { value: PLOT_COLORS.discard },
            tooltip: { signal: "'#' + datum.iteration + ' ' + datum.description" },
          },
        },
      },
      {
        type: 'symbol',
        name: 'frontDots',
        from: { data: 'front' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'x' },
            y: { scale: 'y', field: 'y' },
            size: { value: 70 },
            fill: { value: PLOT_COLORS.keep },
            stroke: { value: 'white' },
            tooltip: { signal: "'#' + datum.iteration + ' ' + datum.description" },
          },
        },
      },
      {
        type: 'text',
        name: 'frontLabels',
        from: { data: 'front' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'x', offset: 5 },
            y: { scale: 'y', field: 'y', offset: -5 },
            text: { signal: "'#' + datum.iteration" },
            fontSize: { value: 10 },
            fill: { value: '#333333' },
          },
        },
      },
      {
        type: 'symbol',
        name: 'incumbentRing',
        from: { data: 'incumbent' },
        encode: {
          enter: {
            x: { scale: 'x', field: 'x' },
            y: { scale: 'y', field: 'y' },
            size: { value: 220 },
            fill: { value: 'transparent' },
            stroke: { value: PLOT_COLORS.baseline },
            strokeWidth: { value: 2 },
          },
        },
      },
    ],
  };
}

/** A front state as `.loop/pareto.json` lists it. */
const frontEntry = (p: ParetoPoint) => ({
  iteration: p.iteration,
  commit: p.candidateId,
  status: p.status,
  values: p.values,
});

/** Options of {@link writeParetoReport}. */
export interface WriteParetoReportOptions {
  /** The run's results.tsv (either form); its `.loop/iterations.jsonl` gives each row's metrics. */
  readonly results: string;
  /** Two or more objectives (the plot draws the first two). */
  readonly objectives: readonly ObjectiveSpec[];
  /** Where to write the SVG. @default `.loop/pareto.svg` in the run's workspace */
  readonly out?: string;
}

/**
 * `loop report --pareto a:min,b:max`: the run's Pareto front (core's `paretoFront` over the rows and
 * their sidecar metrics) as `.loop/pareto.json` (each front state's iteration, commit, status and
 * values: a reverted state's commit stays reachable as `refs/loop/discarded/<iteration>` with the
 * git rollback) and as an SVG scatter (the first two objectives).
 */
export async function writeParetoReport(
  options: WriteParetoReportOptions,
): Promise<{ readonly files: readonly string[]; readonly front: readonly ParetoPoint[] }> {
  const dir = runDirOf(options.results);
  const data = parseResults(await readFile(options.results, 'utf8'), options.results);
  const times = await readIterationTimes(dir);
  const records = recordsOf(data.points, new Map([...times].map(([i, t]) => [i, t.metrics])));
  const front = paretoFront(records, options.objectives);
  const onFront = new Set(front.map((p) => p.iteration));
  const incumbent = records.findLast((r) => r.status === 'kept' || r.status === 'baseline')?.iteration;
  const [a, b] = options.objectives;
  const dots: Dot[] = records
    .filter((r) => r.status === 'baseline' || r.status === 'kept' || r.status === 'reverted')
    .filter((r) => typeof r.data?.metrics?.[a!.metric] === 'number' && typeof r.data?.metrics?.[b!.metric] === 'number')
    .map((r) => ({
      iteration: r.iteration,
      x: r.data!.metrics![a!.metric]!,
      y: r.data!.metrics![b!.metric]!,
      front: onFront.has(r.iteration),
      incumbent: r.iteration === incumbent,
      description: r.description,
    }));
  const extra =
    options.objectives.length > 2 ? ` (front over ${options.objectives.length} objectives; the first two drawn)` : '';
  const view = new View(
    parse(
      paretoSpec(dots, options.objectives, `Pareto front: ${front.length} of ${dots.length} evaluated states${extra}`),
    ),
    { renderer: 'none' },
  );
  let svg: string;
  try {
    svg = await view.toSVG();
  } finally {
    view.finalize();
  }
  const out = options.out ?? join(dir, '.loop', 'pareto.svg');
  const json = join(dirname(out), 'pareto.json');
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, svg);
  const listed = { objectives: options.objectives, evaluated: dots.length, front: front.map(frontEntry) };
  await writeFile(json, `${JSON.stringify(listed, null, 2)}\n`);
  return { files: [out, json], front };
}
