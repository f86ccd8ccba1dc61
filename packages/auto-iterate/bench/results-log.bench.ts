/**
 * What durable logging costs the engine: iterations per second with a function harness, an
 * in-memory artifact and rollback, and three logs (in memory; auto-iterate's results.tsv, fsynced
 * per row; results.tsv plus state.json written atomically). Ratios are per cycle against the
 * in-memory log, the variants interleaved (pnpm bench).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatRatio, interleave, loadLine, pairRatios, timeOf } from '@loop/internal-test-utils/bench';
import {
  createLoop,
  createMemoryArtifact,
  createMemoryResultsLog,
  createMemoryRollback,
  createValueScorer,
  createFunctionHarness,
  createFunctionProposer,
  maxIterations,
} from '@loop/core';
import { createSeededRandom } from '@loop/core/stats';
import { createResultsTsv } from '../src/results-tsv.js';

const ITERATIONS = 200;

function makeLoop(
  results: ReturnType<typeof createMemoryResultsLog> | ReturnType<typeof createResultsTsv>,
  statePath?: string,
) {
  const random = createSeededRandom(1);
  const artifact = createMemoryArtifact({ x: 5 });
  return createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    results,
    ...(statePath ? { files: { statePath } } : {}),
    proposer: createFunctionProposer('nudge', () => {
      artifact.set({ x: artifact.get().x + (random.next() - 0.5) });
      return { description: 'nudge x' };
    }),
    harness: createFunctionHarness('square', () => artifact.get().x ** 2),
    scorer: createValueScorer('minimize'),
    stop: maxIterations(ITERATIONS),
  });
}

const dir = await mkdtemp(join(tmpdir(), 'loop-bench-'));
let n = 0;
// Interleaved (issue 31): each cycle runs every variant once; ratios are per cycle.
const variants = {
  'engine, in-memory results log': async () => {
    await makeLoop(createMemoryResultsLog()).run();
  },
  'engine + results.tsv (fsync per row)': async () => {
    await makeLoop(createResultsTsv({ path: join(dir, `r${n++}.tsv`) })).run();
  },
  'engine + results.tsv + state.json (atomic, fsync)': async () => {
    const i = n++;
    await makeLoop(createResultsTsv({ path: join(dir, `r${i}.tsv`) }), join(dir, `s${i}`, 'state.json')).run();
  },
};
const result = await interleave(variants, { cycles: Number(process.env.BENCH_CYCLES ?? 15), warmup: 1 });
await rm(dir, { recursive: true, force: true });

console.log(
  `\n@loop/auto-iterate: loop throughput by results log (${ITERATIONS} ` +
    `iterations per sample, fake harness, interleaved)`,
);
console.log(loadLine(result.load));
console.log('| task | iterations/s (median) | ms per iteration (median) | relative to in-memory, per cycle |');
console.log('| --- | ---: | ---: | ---: |');
for (const name of Object.keys(variants)) {
  const perIter = timeOf(result, name).median / ITERATIONS;
  console.log(
    `| ${name} | ${(1000 / perIter).toFixed(0)} | ${perIter.toFixed(4)} ` +
      `| ${formatRatio(pairRatios(result, name, 'engine, in-memory results log'), 1)} |`,
  );
}
