/**
 * Benchmarks of the collie pipeline (pnpm bench). It measures and prints; it never asserts a time.
 * Ratios are against a baseline measured in the same run.
 *
 * 1. Flow worktree snapshot / restore (the flow's whole-tree snapshot store: @loop/rollback-snapshot
 * `createTreeSnapshotStore`, excluding SNAPSHOT_EXCLUDED, warm: the store has seen the tree) on git repositories of
 * 100, 1,000 and
 *    5,000 small files (about 200 bytes, in 50 directories) and of 100 small files plus one 50 MB
 *    file (random bytes). Per size:
 *    - `snapshot`: store.snapshot() (what the flow does once per FIX, before its first step);
 *    - `diff`: diffTreeSnapshots of two in-memory snapshots of the unchanged tree (after each agent
 *      step the flow re-snapshots and diffs: that step costs one `snapshot` plus one `diff`);
 *    - `cycle`: store.snapshot(), edit one small file, store.restore() (a skipped FIX; restore walks
 *      the tree once and rewrites the changed file, verified); restore alone is printed
 *      as cycle - snapshot;
 *    - `git`: the baseline, edit the same file then `git checkout -- .` and `git clean -fdq` with
 *      the git CLI (execFileSync) in a twin repository of the same content.
 *    Also prints the memory the snapshot holds (heap + array buffers after a GC, snapshot alive: hashes, not bytes).
 * 2. Controller overhead: full createAutoiter runs over temp dirs, a scripted agent (discovery, NO
 *    ISSUES observer), the trigger `echo "score: 1"` (constant scalar: SC3 convergence stops the run
 *    after iteration 2), no FIX. Every step() is timed and grouped by stage; the baseline is the same
 *    trigger run once through core's createCommandHarness with the options collie passes it.
 *    Each iteration runs the trigger twice (Stage 2 and Stage 5.3).
 *
 * Run from the package directory: `npx tsx --conditions=source bench/collie.bench.ts` (about a
 * minute and a half on 2 cores).
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { formatRatio, formatTime, loadLine, timeOf } from '@loop/internal-test-utils/bench';
import { ITER_STAGES, measureController, TRIGGER } from './controller-overhead.js';
import { measureSnapshot, type SnapshotRow, type Tree } from './snapshot-restore.js';
import { removeTemps } from './temp-dirs.js';

const started = Date.now();

// ---------------------------------------------------------------- main

const gitVersion = execFileSync('git', ['--version'], { encoding: 'utf8' }).trim();
const environment =
  `${new Date().toISOString().slice(0, 10)} · ${process.version} ` +
  `· ${process.platform}/${process.arch} · ${cpus().length} ` +
  `× ${cpus()[0]?.model.trim() ?? '?'} · ${gitVersion}`;

try {
  const trees: { tree: Tree; iterations: number }[] = [
    { tree: { label: '100 files', files: 100, bigBytes: 0 }, iterations: 20 },
    { tree: { label: '1,000 files', files: 1000, bigBytes: 0 }, iterations: 6 },
    { tree: { label: '5,000 files', files: 5000, bigBytes: 0 }, iterations: 10 },
    { tree: { label: '100 files + one 50 MB file', files: 100, bigBytes: 50 * 1024 * 1024 }, iterations: 4 },
  ];
  const rows: SnapshotRow[] = [];
  for (const { tree, iterations } of trees) rows.push(await measureSnapshot(tree, iterations));

  console.log(`\n@loop/collie: flow worktree snapshot / restore, one file edited (${environment})`);
  console.log(
    'median ms per operation; cycle = store.snapshot() + edit + ' +
      'store.restore() (warm store); git = edit + `git checkout -- .` + `git ' +
      'clean -fd`; interleaved, cycle / git per cycle: median (min-max)\n',
  );
  for (const r of rows) console.log(`${r.tree.label}: ${r.load}`);
  console.log(
    '| worktree | entries | held MB | snapshot | diff | restore (cycle - ' +
      'snapshot) | cycle | git | cycle / git | samples |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const f = (v: number) => v.toFixed(1);
    console.log(
      `| ${r.tree.label} | ${r.entries} | ${r.heldMb.toFixed(1)} ` +
        `| ${f(r.ms.snapshot)} | ${r.ms.diff.toFixed(2)} ` +
        `| ${f(r.ms.cycle - r.ms.snapshot)} | ${f(r.ms.cycle)} | ${f(r.ms.git)} ` +
        `| ${formatRatio(r.ratio)} | ${r.samples} |`,
    );
  }

  const c = await measureController(8);
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
  const iterMs = sum(ITER_STAGES.flatMap((s) => c.byStage.get(s) ?? [])) / c.iterations;
  const stepMs = (iterMs * c.iterations) / c.stepsInIterations;
  const h = c.harness.median;
  console.log(`\n@loop/collie: controller overhead, trigger \`${TRIGGER}\`, scripted agent, no FIX (${environment})`);
  console.log(loadLine(c.result.load));
  console.log(
    `one run = Stage 0 + recovery + ${c.iterations / c.runs} iterations ` +
      `(${c.status}, SC3) + terminal step; ${c.runs} runs interleaved ` +
      `with ${c.runs} harness runs, ${c.stepsInIterations / c.iterations} steps ` +
      `per iteration\n`,
  );
  console.log('| measure | ms | x one harness run, per cycle: median (min-max) |');
  console.log('| --- | ---: | ---: |');
  console.log(`| command harness, one trigger run (baseline) | ${formatTime(c.harness)} | 1.00x |`);
  console.log(
    `| autoiter, whole run | ${formatTime(timeOf(c.result, 'autoiter run'))} | ${formatRatio(c.ratios.run)} |`,
  );
  console.log(
    `| autoiter, per iteration (2 trigger runs) | ${iterMs.toFixed(1)} (mean) | ${formatRatio(c.ratios.iteration)} |`,
  );
  console.log(
    `| autoiter, per step inside an iteration | ${stepMs.toFixed(1)} (mean) | ${formatRatio(c.ratios.step)} |`,
  );
  console.log(
    `| state machine per iteration (iteration - 2 harness runs) ` +
      `| ${(iterMs - 2 * h).toFixed(1)} (mean - 2 x median) ` +
      `| ${formatRatio(c.ratios.machine)} |`,
  );
  console.log('\n| step | calls | mean ms | x median harness run |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const key of ['stage0', 'recovered', ...ITER_STAGES, 'done']) {
    const xs = c.byStage.get(key);
    if (!xs) continue;
    console.log(`| ${key} | ${xs.length} | ${mean(xs).toFixed(1)} | ${(mean(xs) / h).toFixed(2)}x |`);
  }
} finally {
  removeTemps();
}
console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
