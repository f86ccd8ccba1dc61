/**
 * What ending every process of a step costs (issue 12): `runInGroup` (process group, per-run
 * cgroup where writable, run-token scan of /proc, pid file) against a bare detached spawn with a
 * group kill (the old clean-up), and `runInGroup` confined by bwrap, for a command that does
 * nothing (`true`), so the numbers are the overhead per step. Interleaved cycle by cycle (issue 31).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatRatio, formatTime, interleave, loadLine, pairRatios, timeOf } from '@loop/internal-test-utils/bench';
import { bwrapStatus, runInGroup } from '../src/process.js';
import { runCgroupBase } from '../src/process/run-cgroup.js';

const dir = mkdtempSync(join(tmpdir(), 'loop-bench-procs-'));
const bare = () =>
  new Promise<void>((resolve) => {
    const child = spawn('/bin/sh', ['-c', 'true'], { cwd: dir, detached: true, stdio: 'ignore' });
    child.once('exit', () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
      resolve();
    });
  });
const grouped = (sandbox?: { writable: string[] }) =>
  runInGroup({
    command: 'true',
    cwd: dir,
    env: process.env,
    outputFd: 1,
    killTimeoutMs: 10_000,
    graceMs: 100,
    pidFile: join(dir, 'run.pgid'),
    ...(sandbox ? { sandbox } : {}),
  });

// Interleaved (issue 31): each cycle runs every variant once; ratios are per cycle.
const variants: Record<string, () => Promise<unknown>> = {
  'bare spawn + group kill': bare,
  runInGroup: () => grouped(),
};
const bwrap = bwrapStatus().available;
if (bwrap) variants['runInGroup + bwrap'] = () => grouped({ writable: [dir] });
const result = await interleave(variants, { cycles: Number(process.env.BENCH_CYCLES ?? 100), warmup: 5 });
rmSync(dir, { recursive: true, force: true });

const processes = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;
console.log(
  `\n@loop/core: per-step process clean-up (cgroup ${runCgroupBase() ? 'on' : 'off'}, ${processes} processes in /proc)`,
);
console.log(loadLine(result.load));
console.log('| run | ms per step, median (min-max) | vs bare, per cycle: median (min-max) |');
console.log('| --- | ---: | ---: |');
for (const name of Object.keys(variants))
  console.log(
    `| ${name} | ${formatTime(timeOf(result, name), 2)} ` +
      `| ${formatRatio(pairRatios(result, name, 'bare spawn + group kill'), 1)} |`,
  );
