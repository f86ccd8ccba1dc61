/**
 * How the engine's own cost grows with the length of a run: ms per iteration in memory (function
 * harness, memory artifact, rollback and results log) at 200 / 2,000 / 20,000 / 100,000 iterations, against
 * a bare keep/revert loop written by hand in the same run (the same proposer, harness and scorer
 * calls with no engine around them), the first vs the last tenth of one 100,000-iteration run, and
 * the heap a run retains per iteration (after a forced GC) at 20,000 and 100,000 iterations: the same
 * bytes per row means the heap grows linearly in the rows the history and the results log keep.
 * Flat means the engine's per-iteration work does not depend on the history's length.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { formatRatio, interleave, loadLine, pairRatios, timeOf } from '@loop/internal-test-utils/bench';
import {
  createFunctionHarness,
  createFunctionProposer,
  createLoop,
  createMemoryArtifact,
  createMemoryResultsLog,
  createMemoryRollback,
  createValueScorer,
  maxIterations,
} from '../src/index.js';
import { createSeededRandom } from '../src/stats.js';

function parts(seed: number) {
  const random = createSeededRandom(seed);
  const artifact = createMemoryArtifact({ x: 5 });
  const proposer = createFunctionProposer(
    'nudge',
    () => (artifact.set({ x: artifact.get().x + (random.next() - 0.5) }), { description: 'nudge x' }),
  );
  const harness = createFunctionHarness('square', () => artifact.get().x ** 2);
  const scorer = createValueScorer('minimize');
  return { artifact, proposer, harness, scorer };
}

async function engine(n: number, onIteration?: (i: number) => void) {
  const { artifact, proposer, harness, scorer } = parts(1);
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    results: createMemoryResultsLog(),
    proposer,
    harness,
    scorer,
    stop: maxIterations(n),
  });
  if (onIteration) loop.on('iteration-started', (e) => onIteration(e.iteration));
  await loop.run();
  return loop;
}

/** The cost floor: the same calls in a hand-written loop (checkpoint by value, keep if better). */
async function bare(n: number) {
  const { artifact, proposer, harness, scorer } = parts(1);
  const signal = new AbortController().signal;
  const score = async (iteration: number) => {
    const r = await scorer.score(await harness.run({ iteration, signal }));
    return r.ok ? r.value : Number.POSITIVE_INFINITY;
  };
  let best = await score(0);
  const rows: unknown[] = [];
  for (let i = 1; i <= n; i++) {
    const kept = artifact.get();
    await proposer.propose({
      iteration: i,
      attempt: 0,
      history: [],
      baseline: best,
      best,
      direction: 'minimize',
      hints: [],
      signal,
    });
    const s = await score(i);
    rows.push({ i, s });
    if (s < best) best = s;
    else artifact.set(kept);
  }
}

const sizes = [200, 2000, 20000, 100000];
// Interleaved (issue 31): each cycle runs every variant once; ratios are per cycle.
const variants: Record<string, () => Promise<unknown>> = {};
for (const n of sizes) {
  variants[`engine ${n}`] = () => engine(n);
  variants[`bare ${n}`] = () => bare(n);
}
const result = await interleave(variants, { cycles: Number(process.env.BENCH_CYCLES ?? 3), warmup: 1 });
const perIteration = (name: string, n: number) => timeOf(result, name).median / n;
/** Per cycle: (engine at n per iteration) / (engine at 200 per iteration). */
const vs200 = (n: number) => {
  const r = pairRatios(result, `engine ${n}`, 'engine 200');
  return { ...r, min: (r.min * 200) / n, median: (r.median * 200) / n, max: (r.max * 200) / n };
};

console.log(
  '\n@loop/core: engine cost per iteration as the run grows (in memory; ' +
    'bare = the same calls in a hand-written loop, interleaved)',
);
console.log(loadLine(result.load));
console.log(
  '| iterations | engine ms/iteration (median) | bare ms/iteration ' +
    '(median) | engine / bare, per cycle | vs 200, per cycle |',
);
console.log('| ---: | ---: | ---: | ---: | ---: |');
for (const n of sizes) {
  console.log(
    `| ${n} | ${perIteration(`engine ${n}`, n).toFixed(4)} ` +
      `| ${perIteration(`bare ${n}`, n).toFixed(4)} ` +
      `| ${formatRatio(pairRatios(result, `engine ${n}`, `bare ${n}`), 1)} ` +
      `| ${formatRatio(vs200(n))} |`,
  );
}

// First vs last tenth of one long run.
const N = 100000;
const stamps = new Array<number>(N + 2);
await engine(N, (i) => (stamps[i] = performance.now()));
const tenth = N / 10;
const first = (stamps[tenth + 1]! - stamps[1]!) / tenth;
const last = (stamps[N]! - stamps[N - tenth]!) / tenth;
console.log(
  `\none ${N}-iteration run: first tenth ${first.toFixed(4)} ms/iteration, ` +
    `last tenth ${last.toFixed(4)} ms/iteration (last / ` +
    `first ${(last / first).toFixed(2)}x)`,
);

// Heap retained per iteration: the loop (history, counters, results log) is kept alive while measured.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => (gc(), gc(), process.memoryUsage().heapUsed);
// Two forced GCs right after the 100,000-iteration timing run do not yet free it (a heap snapshot shows
// nothing of ours retains a finished loop); a tiny run in between does, so it goes first.
await engine(10);
heap();
const perRow: number[] = [];
const alive: unknown[] = []; // each loop stays reachable while the next one is measured
for (const n of [2000, 20000, 100000]) {
  const before = heap();
  alive.push(await engine(n));
  const bytes = (heap() - before) / n;
  perRow.push(bytes);
  console.log(
    `heap retained after ${n} ` +
      `iterations: ${((bytes * n) / 2 ** 20).toFixed(1)} ` +
      `MiB, ${bytes.toFixed(0)} bytes per iteration`,
  );
}
console.log(
  `bytes per iteration 100,000 / 20,000: ${(perRow[2]! / perRow[1]!).toFixed(2)}x (1.00x = linear in the rows kept)`,
);
