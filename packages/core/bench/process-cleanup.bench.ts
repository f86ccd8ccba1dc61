/**
 * What ending every process of a step costs (issue 12): `runInGroup` (process group, per-run
 * cgroup where writable, run-token scan of /proc, pid file) against a bare detached spawn with a
 * group kill (the old clean-up), and `runInGroup` confined by bwrap, for a command that does
 * nothing (`true`), so the numbers are the overhead per step. Measured in the same run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { bwrapStatus, runInGroup } from '../src/index.js';
import { runCgroupBase } from '../src/internal/run-cgroup.js';

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
const grouped = (sandbox?: { writable: string[] }) => runInGroup({ command: 'true', cwd: dir, env: process.env, outputFd: 1, killTimeoutMs: 10_000, graceMs: 100, pidFile: join(dir, 'run.pgid'), ...(sandbox ? { sandbox } : {}) });

const bench = new Bench({ time: 2000, warmupTime: 200, iterations: 20 });
bench.add('bare spawn + group kill', bare);
bench.add('runInGroup', () => grouped());
const bwrap = bwrapStatus().available;
if (bwrap) bench.add('runInGroup + bwrap', () => grouped({ writable: [dir] }));
await bench.run();
rmSync(dir, { recursive: true, force: true });
const mean = (name: string) => (bench.tasks.find((t) => t.name === name)!.result as { latency: { mean: number } }).latency.mean;

const b = mean('bare spawn + group kill');
const g = mean('runInGroup');
const processes = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).length;
console.log(`\n@loop/core: per-step process clean-up (cgroup ${runCgroupBase() ? 'on' : 'off'}, ${processes} processes in /proc)`);
console.log('| run | ms per step | vs bare |');
console.log('| --- | ---: | ---: |');
console.log(`| bare spawn + group kill | ${b.toFixed(2)} | 1.0x |`);
console.log(`| runInGroup | ${g.toFixed(2)} | ${(g / b).toFixed(1)}x |`);
if (bwrap) {
  const w = mean('runInGroup + bwrap');
  console.log(`| runInGroup + bwrap | ${w.toFixed(2)} | ${(w / b).toFixed(1)}x |`);
}
