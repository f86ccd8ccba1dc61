/**
 * What warming the cgroup migration saves (issue 31): one `runInGroupToLog` of `echo "score: 1"`
 * (process group, per-run cgroup, run token, pid file) after a pause of `--gap` ms (default 40: in a
 * loop, runs are that far apart, so the kernel's grace-period state has gone idle), interleaved
 * cycle by cycle:
 *
 * - `cold`: the run alone (what every run of a loop paid before the `prepare` hook);
 * - `warmed N ms before`: `warmRunCgroups()` (what the command harness's `prepare` does), then N ms
 *   standing for the work the loop does meanwhile anyway (the inspection and the commit: 3-6 ms at
 *   1,000 files), then the run; only the run is timed, as in `cold`;
 * - `no cgroup`: the same run with `LOOP_CGROUP=off` (process group and run token only).
 *
 * Prints each variant's median (min-max) and the per-cycle ratio to `cold`, and the load. Where the
 * loop may not make cgroups every variant is the `no cgroup` one (the bench says so). It measures,
 * it does not assert. `npx tsx --conditions=source bench/cgroup-warm.bench.ts [cycles] [--gap ms]`
 * in packages/core (default 60 cycles).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatRatio, formatTime, interleave, loadLine, pairRatios, timeOf } from '@loop/internal-test-utils/bench';
import { runInGroupToLog } from '../src/process/process-group.js';
import { runCgroupBase, warmRunCgroups } from '../src/process/run-cgroup.js';

const args = process.argv.slice(2);
const CYCLES = Number(args.find((a) => /^\d+$/.test(a)) ?? 60);
const gapAt = args.indexOf('--gap');
const GAP_MS = gapAt >= 0 ? Number(args[gapAt + 1]) : 40;
const dir = mkdtempSync(join(tmpdir(), 'loop-cgroup-warm-'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const run = () =>
  runInGroupToLog({
    logPath: join(dir, 'run.log'),
    sync: false,
    command: 'echo "score: 1"',
    cwd: dir,
    env: process.env,
    killTimeoutMs: 60_000,
    graceMs: 5000,
    pidFile: join(dir, 'run.pgid'),
  });

/** A sample after the pause; only the part after it is timed. */
const afterGap = (body: () => Promise<unknown>) => async () => {
  await sleep(GAP_MS);
  const start = performance.now();
  await body();
  return { measuredMs: performance.now() - start };
};

/** The warm-up, then the head start (in a loop: the inspection and the commit), then the timed run. */
const warmed = (headStartMs: number) => async () => {
  await sleep(GAP_MS);
  void warmRunCgroups();
  await sleep(headStartMs);
  const start = performance.now();
  await run();
  return { measuredMs: performance.now() - start };
};

const variants = {
  cold: afterGap(run),
  'warmed 3 ms before': warmed(3),
  'warmed 6 ms before': warmed(6),
  'no cgroup': afterGap(async () => {
    process.env.LOOP_CGROUP = 'off';
    try {
      await run();
    } finally {
      delete process.env.LOOP_CGROUP;
    }
  }),
};
const cgroups = runCgroupBase() !== null;
const result = await interleave(variants, { cycles: CYCLES, warmup: 3 });
rmSync(dir, { recursive: true, force: true });

console.log(
  `\n@loop/core: one run of \`echo "score: 1"\` ${GAP_MS} ms after the previous one, with and without ` +
    `warming the cgroup migration (${CYCLES} interleaved cycles; ${process.version}; per-run cgroups: ` +
    `${cgroups ? 'yes' : 'NO (every variant runs without one)'})`,
);
console.log(loadLine(result.load));
console.log('| variant | ms median (min-max) | / cold, per cycle |');
console.log('| --- | ---: | ---: |');
for (const name of Object.keys(variants))
  console.log(
    `| ${name} | ${formatTime(timeOf(result, name), 2)} | ${formatRatio(pairRatios(result, name, 'cold'))} |`,
  );
