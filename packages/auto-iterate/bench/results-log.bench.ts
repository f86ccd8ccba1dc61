/**
 * What durable logging costs the engine: iterations per second with a function harness, an
 * in-memory artifact and rollback, and three logs (in memory; auto-iterate's results.tsv, fsynced
 * per row; results.tsv plus state.json written atomically). Ratios are against the in-memory log
 * measured in the same run (pnpm bench).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { createLoop, createMemoryArtifact, createMemoryResultsLog, createMemoryRollback, createSeededRandom, createValueScorer, createFunctionHarness, createFunctionProposer, maxIterations } from '@loop/core';
import { createResultsTsv } from '../src/results-tsv.js';

const ITERATIONS = 200;

function makeLoop(results: ReturnType<typeof createMemoryResultsLog> | ReturnType<typeof createResultsTsv>, statePath?: string) {
  const random = createSeededRandom(1);
  const artifact = createMemoryArtifact({ x: 5 });
  return createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    results,
    ...(statePath ? { statePath } : {}),
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
const bench = new Bench({ time: 2000, warmupTime: 300 });
bench
  .add('engine, in-memory results log', async () => {
    await makeLoop(createMemoryResultsLog()).run();
  })
  .add('engine + results.tsv (fsync per row)', async () => {
    await makeLoop(createResultsTsv({ path: join(dir, `r${n++}.tsv`) })).run();
  })
  .add('engine + results.tsv + state.json (atomic, fsync)', async () => {
    const i = n++;
    await makeLoop(createResultsTsv({ path: join(dir, `r${i}.tsv`) }), join(dir, `s${i}`, 'state.json')).run();
  });
await bench.run();
await rm(dir, { recursive: true, force: true });

const base = bench.tasks[0]!.result!;
console.log(`\n@loop/auto-iterate: loop throughput by results log (${ITERATIONS} iterations per sample, fake harness)`);
console.log('| task | iterations/s | ms per iteration | relative to in-memory |');
console.log('| --- | ---: | ---: | ---: |');
for (const task of bench.tasks) {
  const r = task.result as { latency?: { mean: number } } | undefined;
  const meanMs = r?.latency?.mean ?? Number.NaN;
  const baseMs = (base as { latency?: { mean: number } }).latency?.mean ?? Number.NaN;
  const perIter = meanMs / ITERATIONS;
  console.log(`| ${task.name} | ${(1000 / perIter).toFixed(0)} | ${perIter.toFixed(4)} | ${(meanMs / baseMs).toFixed(1)}x |`);
}
