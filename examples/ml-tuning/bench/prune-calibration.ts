/**
 * Calibrates the demo's incumbent-curve pruner (issue 27) on seeds the pruning bench does not use:
 * per seed one run of the demo with pruning off on the batch schedule (A of pruning.bench.ts), then
 * the pruner replayed on the recorded curves (prune-replay.ts) for a grid of warm-ups (share of the
 * steps) and margins. Printed per setting, summed over the seeds: kept candidates it would have
 * stopped (false prunes), candidates it would have stopped, and the share of training time saved.
 * The curves do not depend on the machine's load (a step budget, not a time budget), so neither do
 * the figures.
 *
 * Flags: --seeds A-B (6-10), --iterations N (12), --steps N (1500), --parallel K (2), --out DIR (a temp
 * dir), --from DIR (replay the runs `DIR/A-<seed>` already made, by this script or by pruning.bench.ts
 * with `--out DIR`, with the steps and candidates each run recorded; nothing is trained). Bad input
 * exits 2 with a message, before anything runs.
 * Run: npx tsx --conditions=source examples/ml-tuning/bench/prune-calibration.ts --seeds 6-10
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  hyperbandPruner,
  incumbentCurvePruner,
  medianPruner,
  nonFinitePruner,
  patiencePruner,
  successiveHalvingPruner,
} from '@loop/core/policies';
import type { Pruner } from '@loop/core';
import { median } from '@loop/core/stats';
import { runDemo } from '../src/demo.js';
import { PRUNE_MARGIN, PRUNE_WARMUP_SHARE, reportEveryOf } from '../src/run-config.js';
import { replayPruner, type Replay } from './prune-replay.js';

type Summed = keyof Pick<Replay, 'candidates' | 'pruned' | 'kept' | 'wouldPrune' | 'trainingS' | 'savedS'>;

/** Prints `message` and exits 2 (bad input: nothing was run). */
function refuse(message: string): never {
  console.error(`prune-calibration: ${message}`);
  process.exit(2);
}

const USAGE = `usage: prune-calibration.ts [--seeds A-B] [--iterations N] [--steps N] [--parallel K] [--out DIR]
                            [--from DIR]
  --seeds A-B      seeds to run, a seed or a range (default 6-10; pruning.bench.ts uses 1-5)
  --iterations N   iterations per run (default 12)
  --steps N        training steps per candidate (default 1500)
  --parallel K     candidates at once (default 2)
  --out DIR        where the runs go, DIR/A-<seed> (default a temp dir)
  --from DIR       replay the runs already in DIR/A-<seed>; nothing is trained`;

let values: Record<string, string | boolean | undefined> = {};
try {
  const names = ['seeds', 'iterations', 'steps', 'parallel', 'out', 'from'];
  const options = Object.fromEntries(names.map((name) => [name, { type: 'string' as const }]));
  values = parseArgs({ options: { ...options, help: { type: 'boolean', short: 'h' } } }).values;
} catch (error) {
  refuse(`${(error as Error).message}\n${USAGE}`);
}
if (values['help'] === true) {
  console.log(USAGE);
  process.exit(0);
}
const text = (name: string): string | undefined => values[name] as string | undefined;
const count = (name: string, fallback: number): number => {
  const given = text(name);
  if (given === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(given)) refuse(`--${name} must be a whole number of at least 1, got ${JSON.stringify(given)}`);
  return Number(given);
};
const range = /^(\d+)(?:-(\d+))?$/.exec(text('seeds') ?? '6-10');
const first = Number(range?.[1]);
const last = Number(range?.[2] ?? range?.[1]);
if (!range || last < first) refuse(`--seeds must be a seed or a range like 6-10, got ${JSON.stringify(text('seeds'))}`);
// Each seed is a run of minutes: a range of thousands is a typo, refused before it fills memory.
if (last - first >= 1000) refuse(`--seeds ${text('seeds')} is more than 1000 seeds: give a smaller range`);
const seeds = Array.from({ length: last - first + 1 }, (_, i) => first + i);
const from = text('from');
// With --from the runs' own settings are used: these flags are ignored (said below), not checked.
let steps = from === undefined ? count('steps', 1500) : 1500;
let parallel = from === undefined ? count('parallel', 2) : 2;
const iterations = from === undefined ? count('iterations', 12) : 12;

/** A replayed run's steps and parallel candidates, from the demo's own record of them. */
function settingsOf(dir: string): { steps: number; parallel: number } {
  const file = join(dir, '.loop', 'demo.json');
  if (!existsSync(join(dir, 'results.tsv')) || !existsSync(file))
    refuse(`${dir} is not a demo run (no results.tsv or ${file})`);
  const demo = JSON.parse(readFileSync(file, 'utf8')) as { steps?: number; parallel?: number };
  if (!demo.steps) refuse(`${dir} trained on a time budget, not a step budget: its curves cannot be replayed by step`);
  // Only a run without pruning on the batch schedule (the bench's A) has whole curves and batches to replay.
  const config = join(dir, '.loop', 'loop.config.json');
  const ran = existsSync(config)
    ? (JSON.parse(readFileSync(config, 'utf8')) as { prune?: { enabled?: boolean }; parallel?: { schedule?: string } })
    : {};
  const records = join(dir, '.loop', 'records.jsonl');
  const pruned = existsSync(records) && readFileSync(records, 'utf8').includes('"pruned":');
  if ((ran.prune && ran.prune.enabled !== false) || pruned)
    refuse(
      `${dir} ran with pruning on: its curves were cut short (replay a run made with --no-prune --schedule batch)`,
    );
  if (ran.parallel?.schedule === 'async')
    refuse(`${dir} ran on the async schedule: it has no batches to replay (replay a run made with --schedule batch)`);
  return { steps: demo.steps, parallel: demo.parallel ?? 2 };
}

const runs: string[] = [];
if (from !== undefined) {
  if (!existsSync(from)) refuse(`--from ${from}: no such folder (it holds the runs A-<seed>)`);
  const ignored = ['steps', 'parallel', 'iterations', 'out'].filter((name) => text(name) !== undefined);
  if (ignored.length > 0)
    console.log(`(--from: ${ignored.map((n) => `--${n}`).join(', ')} ignored; each run's own settings are used)`);
  // The runs say how they were made: the steps and candidates are theirs, not this call's flags.
  for (const seed of seeds) {
    const out = join(from, `A-${seed}`);
    const made = settingsOf(out);
    if (runs.length > 0 && (made.steps !== steps || made.parallel !== parallel))
      refuse(
        `${out} ran ${made.steps} steps with ${made.parallel} candidates, the runs before it ${steps} and ${parallel}`,
      );
    ({ steps, parallel } = made);
    runs.push(out);
  }
} else {
  const root = text('out') ?? mkdtempSync(join(tmpdir(), 'loop-prune-cal-'));
  for (const seed of seeds) {
    const out = join(root, `A-${seed}`);
    const started = Date.now();
    await runDemo({
      out,
      seed,
      steps,
      parallel,
      iterations,
      resume: false,
      prune: false,
      schedule: 'batch',
      print: () => {},
    });
    console.log(`seed ${seed}: ${iterations} iterations in ${((Date.now() - started) / 1000).toFixed(0)} s (${out})`);
    runs.push(out);
  }
}

console.log(
  `\n${runs.length} runs without pruning, ${steps} steps, K=${parallel}: the incumbent-curve pruner replayed`,
);
console.log('| warm-up (share of steps) | margin | keeps stopped | candidates stopped | training time saved |');
console.log('| ---: | ---: | ---: | ---: | ---: |');
for (const warmup of [0.1, 0.2, 0.3]) {
  for (const margin of [0.02, 0.03, 0.05, 0.1]) {
    const { cells } = await replayEach(incumbentCurvePruner({ margin, warmupSteps: Math.round(steps * warmup) }));
    console.log(`| ${warmup} | ${margin} | ${cells.join(' | ')} |`);
  }
}

// What the demo's pruner and the async schedule could at best make of each run's own proposals: the
// training time to the run's best, as it ran (batches wait for their slowest) and with the pruner's
// stops packed on K cores without a gap. The pruning bench's B proposes differently (a pruned row
// gives the model an estimate, not the final score; rows arrive in another order), so this bounds
// what pruning alone gives, not B.
const demo = incumbentCurvePruner({ margin: PRUNE_MARGIN, warmupSteps: Math.round(steps * PRUNE_WARMUP_SHARE) });
console.log(
  `\nTraining time to each run's best with the demo's pruner (${PRUNE_MARGIN * 100}% after ` +
    `${PRUNE_WARMUP_SHARE * 100}% of the steps), its stops packed on ${parallel} cores:`,
);
console.log(
  '| run | best at iteration | as it ran (batches) | pruned, packed | ratio | perfect pruner, packed | ratio |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
const ratios: number[] = [];
const perfectRatios: number[] = [];
const ratioText = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : 'never');
const estimates: Replay['estimates'][number][] = [];
for (const dir of runs) {
  const r = await replayPruner(dir, demo, steps, parallel);
  estimates.push(...r.estimates);
  ratios.push(r.toBestPackedS / r.toBestBatchS);
  const packed = Number.isFinite(r.toBestPackedS) ? `${r.toBestPackedS.toFixed(1)} s` : 'never (a keep stopped)';
  perfectRatios.push(r.toBestPerfectS / r.toBestBatchS);
  const cells = [`${r.bestIteration}`, `${r.toBestBatchS.toFixed(1)} s`, packed, ratioText(ratios.at(-1)!)];
  console.log(
    `| ${dir} | ${cells.join(' | ')} | ${r.toBestPerfectS.toFixed(1)} s | ${ratioText(perfectRatios.at(-1)!)} |`,
  );
}
for (const [name, values] of [
  ['the demo pruner', ratios],
  ['a perfect pruner', perfectRatios],
] as const) {
  const [min, max] = [Math.min(...values), Math.max(...values)];
  console.log(`${name}: ratio min ${ratioText(min)}, median ${ratioText(median(values))}, max ${ratioText(max)}`);
}
console.log('(start-up and evaluation outside training not counted; "never": the pruner stops a keep on the way)');
printEstimates(estimates);
await printEachPruner();
process.exit(0);

/**
 * Every built-in pruner replayed on the same runs (issue 27's "each built-in pruner"), at the settings
 * a user would start from: Optuna's for the median, successive halving and Hyperband (first rung at
 * the first report, η 3), three reports for patience. Summed counts, and the median over runs of the
 * packed training time to the run's best over the time as it ran (the bound above, per pruner).
 */
async function printEachPruner(): Promise<void> {
  const every = reportEveryOf(steps);
  const pruners: [string, Pruner][] = [
    [`incumbent curve (the demo: ${PRUNE_MARGIN * 100}% after ${PRUNE_WARMUP_SHARE * 100}%)`, demo],
    ['median (5 runs, after the first report)', medianPruner({ minRuns: 5, warmupSteps: every })],
    ['patience (3 reports)', patiencePruner({ patience: 3 })],
    ['non-finite', nonFinitePruner()],
    ['successive halving (η 3)', successiveHalvingPruner({ minStep: every })],
    ['hyperband (η 3)', hyperbandPruner({ minStep: every, maxStep: steps })],
  ];
  console.log(`\nEach built-in pruner replayed on the ${runs.length} runs (reports every ${every} steps):`);
  console.log('| pruner | keeps stopped | candidates stopped | training time saved | time to best, packed (median) |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [name, pruner] of pruners) {
    const { cells, toBest } = await replayEach(pruner);
    console.log(`| ${name} | ${cells.join(' | ')} | ${ratioText(median(toBest))} |`);
  }
}

/**
 * `pruner` replayed on every run: the table cells of the counts summed over the runs (keeps
 * stopped, candidates stopped, share of training time saved) and each run's packed time to its
 * best over the time as it ran.
 */
async function replayEach(pruner: Pruner): Promise<{ cells: string[]; toBest: number[] }> {
  const sum: Record<Summed, number> = { candidates: 0, pruned: 0, kept: 0, wouldPrune: 0, trainingS: 0, savedS: 0 };
  const toBest: number[] = [];
  for (const dir of runs) {
    const replay = await replayPruner(dir, pruner, steps, parallel);
    for (const key of Object.keys(sum) as Summed[]) sum[key] += replay[key];
    toBest.push(replay.toBestPackedS / replay.toBestBatchS);
  }
  const saved = sum.trainingS > 0 ? (100 * sum.savedS) / sum.trainingS : 0;
  return {
    cells: [`${sum.wouldPrune} of ${sum.kept}`, `${sum.pruned} of ${sum.candidates}`, `${saved.toFixed(0)}%`],
    toBest,
  };
}

/**
 * How well the model-based proposer's estimate of a stopped run's final score (`prunedEstimate`)
 * matches the score the run reached: median error, median absolute error, Spearman's rank correlation.
 */
function printEstimates(pairs: readonly { readonly estimate: number; readonly final: number }[]): void {
  if (pairs.length < 2) {
    console.log(
      `\nThe proposer's estimate of a stopped run's final score: ${pairs.length} stopped, too few to compare`,
    );
    return;
  }
  const errors = pairs.map((p) => p.estimate - p.final);
  // Ranks (ties share their mean rank), then Pearson's correlation of the ranks.
  const ranks = (xs: number[]) =>
    xs.map((x) => xs.filter((y) => y < x).length + (xs.filter((y) => y === x).length - 1) / 2);
  const a = ranks(pairs.map((p) => p.estimate));
  const b = ranks(pairs.map((p) => p.final));
  const meanRank = (pairs.length - 1) / 2;
  const dot = (u: number[], v: number[]) => u.reduce((sum, x, i) => sum + (x - meanRank) * (v[i]! - meanRank), 0);
  // Undefined when either side has a single value (all tied).
  const spread = Math.sqrt(dot(a, a) * dot(b, b));
  const spearman = spread > 0 ? (dot(a, b) / spread).toFixed(2) : 'undefined (all tied)';
  console.log(
    `\nThe proposer's estimate of a stopped run's final score (prunedEstimate) on the ${pairs.length} runs the ` +
      `demo's pruner stops: error median ${median(errors).toFixed(3)}, absolute error median ` +
      `${median(errors.map(Math.abs)).toFixed(3)}, Spearman's rank correlation with the final score ` +
      spearman,
  );
}
