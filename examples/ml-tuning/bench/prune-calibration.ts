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
 * dir), --from DIR... (replay the A-<seed> runs already in DIR instead of running them).
 * Run: npx tsx --conditions=source examples/ml-tuning/bench/prune-calibration.ts --seeds 6-10
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { incumbentCurvePruner } from '@loop/core/policies';
import { runDemo } from '../src/demo.js';
import { replayPruner, type Replay } from './prune-replay.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
};
const [first, last] = flag('seeds', '6-10').split('-').map(Number) as [number, number?];
const seeds = Array.from({ length: (last ?? first) - first + 1 }, (_, i) => first + i);
const ITERATIONS = Number(flag('iterations', '12'));
const STEPS = Number(flag('steps', '1500'));
const PARALLEL = Number(flag('parallel', '2'));
const from = args.includes('--from') ? flag('from', '') : undefined;
const root = from ?? (args.includes('--out') ? flag('out', '') : mkdtempSync(join(tmpdir(), 'loop-prune-cal-')));

const runs: string[] = [];
for (const seed of seeds) {
  const out = join(root, `A-${seed}`);
  if (from === undefined) {
    const started = Date.now();
    await runDemo({
      out,
      seed,
      steps: STEPS,
      parallel: PARALLEL,
      iterations: ITERATIONS,
      resume: false,
      prune: false,
      schedule: 'batch',
      print: () => undefined,
    });
    console.log(`seed ${seed}: ${ITERATIONS} iterations in ${((Date.now() - started) / 1000).toFixed(0)} s (${out})`);
  }
  if (existsSync(join(out, 'results.tsv'))) runs.push(out);
}

console.log(
  `\n${runs.length} runs without pruning, ${STEPS} steps, K=${PARALLEL}: the incumbent-curve pruner replayed`,
);
console.log('| warm-up (share of steps) | margin | keeps stopped | candidates stopped | training time saved |');
console.log('| ---: | ---: | ---: | ---: | ---: |');
for (const warmup of [0.1, 0.2, 0.3]) {
  for (const margin of [0.02, 0.05, 0.1]) {
    const pruner = incumbentCurvePruner({ margin, warmupSteps: Math.round(STEPS * warmup) });
    const sum: Record<keyof Replay, number> = {
      candidates: 0,
      pruned: 0,
      kept: 0,
      wouldPrune: 0,
      trainingS: 0,
      savedS: 0,
    };
    for (const dir of runs) {
      const replay = await replayPruner(dir, pruner, STEPS, PARALLEL);
      for (const key of Object.keys(sum) as (keyof Replay)[]) sum[key] += replay[key];
    }
    const saved = sum.trainingS > 0 ? (100 * sum.savedS) / sum.trainingS : 0;
    console.log(
      `| ${warmup} | ${margin} | ${sum.wouldPrune} of ${sum.kept} | ${sum.pruned} of ${sum.candidates} | ${saved.toFixed(0)}% |`,
    );
  }
}
process.exit(0);
