/**
 * What the safe metric extraction costs (issue 12): the regex scorer, which reads the log in a
 * worker thread under a time limit, against extracting on the calling thread (`extractMetric` on
 * the text already in memory: the old scorer's work), at 1,000 and 100,000 log lines; and the
 * command harness fingerprint with `fingerprintPaths: ['node_modules']` (the repository's own,
 * metadata only) against one without, measured in the same run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Bench } from 'tinybench';
import { createCommandHarness, createRegexScorer, extractMetric } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'loop-bench-metric-'));
const sizes = [1_000, 100_000];
const pattern = '^val_bpb:\\s*(\\S+)';
const scorer = createRegexScorer({ pattern, direction: 'minimize' });
const logs = new Map<number, string>();
for (const n of sizes) {
  const path = join(dir, `run-${n}.log`);
  const lines = Array.from({ length: n }, (_, i) => `step ${i} loss ${(1 / (i + 1)).toFixed(6)} lr 0.001`);
  writeFileSync(path, `${lines.join('\n')}\nval_bpb: 0.9979\n`);
  logs.set(n, path);
}
const run = (path: string) => ({ exitCode: 0, signal: null, timedOut: false, durationMs: 1, logPath: path });

const root = resolve(import.meta.dirname, '../../..');
const plain = createCommandHarness({ command: 'node train.mjs', cwd: root, fingerprintFiles: ['package.json'] });
const withPaths = createCommandHarness({ command: 'node train.mjs', cwd: root, fingerprintFiles: ['package.json'], fingerprintPaths: ['node_modules'] });

const bench = new Bench({ time: 1500, warmupTime: 200, iterations: 5 });
for (const n of sizes) {
  const path = logs.get(n)!;
  bench.add(`worker ${n}`, async () => {
    const r = await scorer.score(run(path));
    if (!r.ok) throw new Error(r.message);
  });
  bench.add(`in-thread ${n}`, () => {
    if (!extractMetric(readFileSync(path, 'utf8'), new RegExp(pattern))) throw new Error('no match');
  });
}
bench.add('fingerprint files', () => plain.fingerprint!());
bench.add('fingerprint files + node_modules', () => withPaths.fingerprint!());
await bench.run();
rmSync(dir, { recursive: true, force: true });
const mean = (name: string) => (bench.tasks.find((t) => t.name === name)!.result as { latency: { mean: number } }).latency.mean;

console.log('\n@loop/core: metric extraction in a worker with a time limit vs on the calling thread (same run)');
console.log('| log lines | worker ms | in-thread ms | worker / in-thread |');
console.log('| ---: | ---: | ---: | ---: |');
for (const n of sizes) {
  const w = mean(`worker ${n}`);
  const t = mean(`in-thread ${n}`);
  console.log(`| ${n} | ${w.toFixed(2)} | ${t.toFixed(2)} | ${(w / t).toFixed(1)}x |`);
}
const f = mean('fingerprint files');
const p = mean('fingerprint files + node_modules');
console.log(`\nharness fingerprint: files only ${f.toFixed(2)} ms, with fingerprintPaths [node_modules] ${p.toFixed(2)} ms (${(p / f).toFixed(1)}x)`);
