/**
 * What the safe metric extraction costs (issue 12): the regex scorer, which reads the log in a
 * worker thread under a time limit, against extracting on the calling thread (`extractMetric` on
 * the text already in memory: the old scorer's work), at 1,000 and 100,000 log lines; and the
 * command harness fingerprint with `fingerprintPaths: ['node_modules']` (the repository's own,
 * metadata only) against one without, interleaved cycle by cycle (issue 31).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatRatio, formatTime, interleave, loadLine, pairRatios, timeOf } from '@loop/internal-test-utils/bench';
import { createCommandHarness, createRegexScorer } from '../src/index.js';
import { extractMetric } from '../src/scoring.js';

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
const withPaths = createCommandHarness({
  command: 'node train.mjs',
  cwd: root,
  fingerprintFiles: ['package.json'],
  fingerprintPaths: ['node_modules'],
});

// Interleaved (issue 31): each cycle runs every variant once; ratios are per cycle.
const variants: Record<string, () => unknown> = {};
for (const n of sizes) {
  const path = logs.get(n)!;
  variants[`worker ${n}`] = async () => {
    const r = await scorer.score(run(path));
    if (!r.ok) throw new Error(r.message);
  };
  variants[`in-thread ${n}`] = () => {
    if (!extractMetric(readFileSync(path, 'utf8'), new RegExp(pattern))) throw new Error('no match');
  };
}
variants['fingerprint files'] = () => plain.fingerprint!();
variants['fingerprint files + node_modules'] = () => withPaths.fingerprint!();
const result = await interleave(variants, { cycles: Number(process.env.BENCH_CYCLES ?? 40), warmup: 3 });
rmSync(dir, { recursive: true, force: true });

console.log('\n@loop/core: metric extraction in a worker with a time limit vs on the calling thread (interleaved)');
console.log(loadLine(result.load));
console.log('| log lines | worker ms | in-thread ms | worker / in-thread, per cycle |');
console.log('| ---: | ---: | ---: | ---: |');
for (const n of sizes) {
  console.log(
    `| ${n} | ${formatTime(timeOf(result, `worker ${n}`), 2)} ` +
      `| ${formatTime(timeOf(result, `in-thread ${n}`), 2)} ` +
      `| ${formatRatio(pairRatios(result, `worker ${n}`, `in-thread ${n}`), 1)} |`,
  );
}
const f = timeOf(result, 'fingerprint files');
const p = timeOf(result, 'fingerprint files + node_modules');
console.log(
  `\nharness fingerprint: files only ${formatTime(f, 2)}, with ` +
    `fingerprintPaths [node_modules] ${formatTime(p, 2)} (per ` +
    `cycle ${formatRatio(pairRatios(result, 'fingerprint files + node_modules', 'fingerprint files'), 1)})`,
);
