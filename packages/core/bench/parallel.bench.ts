/**
 * Parallel candidates benchmark (pnpm bench): wall time to reach a target with K = 1, 2, 4
 * candidates per batch, through the real engine (createLoop, in-memory artifact, rollback and
 * working copies), as ratios against K = 1 measured in the same run.
 *
 * The objective is a loss (minimize) starting at 10; the target is 5. Each evaluation sleeps
 * PARALLEL_SLEEP_MS (setTimeout, so it stands for a training run or a service call and the 2-core
 * machine does not limit concurrency) and returns the value exactly (no noise: this measures the
 * search, not the keep policy). Proposal i of a seeded run (its iteration number, whatever K) is a
 * true gain of 1 with probability 0.25 and otherwise a harmful change of 0 to 1: the same proposals
 * for every K, so K changes only how many are tried at once. Strict improvement keeps; at most one
 * candidate per batch is kept.
 *
 * Environment overrides: PARALLEL_SLEEP_MS (default 20), PARALLEL_RUNS (seeded runs per K, default 12).
 */
import { formatRatio, formatTime, interleave, loadLine, pairRatios, timeOf } from '@loop/internal-test-utils/bench';
import {
  anyOf,
  createFunctionHarness,
  createLoop,
  createMemoryArtifact,
  createMemoryRollback,
  createValueScorer,
  maxIterations,
  type MemoryArtifact,
  type Proposer,
} from '../src/index.js';
import { createMemoryWorkingCopies } from '../src/artifacts.js';
import { targetScore } from '../src/policies.js';
import { createSeededRandom } from '../src/stats.js';

const SLEEP_MS = Number(process.env.PARALLEL_SLEEP_MS ?? 20);
const RUNS = Number(process.env.PARALLEL_RUNS ?? 12);
const START = 10;
const TARGET = 5;
const P_GAIN = 0.25;
const KS = [1, 2, 4] as const;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The change proposal `iteration` of run `seed` makes to the value (negative = a true gain). */
function effect(seed: number, iteration: number): number {
  const r = createSeededRandom(seed * 100_003 + iteration);
  return r.next() < P_GAIN ? -1 : r.next();
}

interface Outcome {
  evaluations: number;
  rows: number;
  reached: boolean;
}

async function reachTarget(seed: number, k: number): Promise<Outcome> {
  const artifact = createMemoryArtifact(START);
  let evaluations = 0;
  const evaluate = async (value: () => number) => {
    evaluations += 1;
    await sleep(SLEEP_MS);
    return value();
  };
  const proposer: Proposer = {
    name: 'seeded-step',
    propose: (c) => {
      const a = c.artifact as MemoryArtifact<number>;
      const d = effect(seed, c.iteration);
      a.set(a.get() + d);
      return { description: d < 0 ? 'true gain' : 'harmful change' };
    },
  };
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer,
    harness: createFunctionHarness('sleepy', () => evaluate(() => artifact.get())),
    scorer: createValueScorer('minimize'),
    stop: anyOf(targetScore(TARGET), maxIterations(400)),
    // K = 1 is the default engine (no working copies): the ratios are against the loop as it ships.
    ...(k > 1
      ? {
          parallel: {
            candidates: k,
            workingCopies: createMemoryWorkingCopies(artifact, (copy) =>
              createFunctionHarness('sleepy', () => evaluate(() => copy.get())),
            ),
          },
        }
      : {}),
  });
  const summary = await loop.run();
  return { evaluations, rows: summary.iterations, reached: summary.stop.reason === 'target-reached' };
}

const outcomes = new Map<number, Outcome[]>(KS.map((k) => [k, []]));
// Interleaved (issue 31): cycle c runs every K on seed c + 1, so a ratio compares the same seeded
// search measured back to back.
const variants = Object.fromEntries(
  KS.map((k) => [
    `K = ${k}`,
    async () => void outcomes.get(k)!.push(await reachTarget(outcomes.get(k)!.length + 1, k)),
  ]),
);
const result = await interleave(variants, { cycles: RUNS, warmup: 0 });

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
console.log(
  `\n@loop/core: parallel candidates, wall time to reach the target ` +
    `(${RUNS} seeded runs per K, interleaved per seed, ${SLEEP_MS} ms ` +
    `sleeping harness, loss ${START} -> ${TARGET}, P(gain) ${P_GAIN})`,
);
console.log(loadLine(result.load));
console.log(
  '| K | wall ms to target, median (min-max) | ratio vs K = 1, per seed: ' +
    'median (min-max) | evaluations | rows (candidates) | runs reaching ' +
    'target |',
);
console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
for (const k of KS) {
  const o = outcomes.get(k)!;
  const name = `K = ${k}`;
  console.log(
    `| ${k} | ${formatTime(timeOf(result, name), 0)} ` +
      `| ${formatRatio(pairRatios(result, name, 'K = 1'))} ` +
      `| ${mean(o.map((x) => x.evaluations)).toFixed(1)} ` +
      `| ${mean(o.map((x) => x.rows)).toFixed(1)} ` +
      `| ${o.filter((x) => x.reached).length}/${o.length} |`,
  );
}
