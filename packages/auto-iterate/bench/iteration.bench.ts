/**
 * Benchmark of one full auto-iterate iteration (issue 13) with an instant harness
 * (`echo score: 1`, so every candidate is discarded and reverted) on repositories of 5,000, 20,000
 * and 100,000 files (100 per directory), against the git CLI cycle on a twin repository (a clone)
 * in the same run: edit, `git add -A`, `git commit -q -m x`, `git reset -q --hard HEAD~1`.
 *
 * One auto-iterate iteration is timed from releasing the proposer (which then edits 1 or 10 of
 * the 10 target files) to the next `propose` call: the surface inspection before and after,
 * the commit, the harness run, the revert and the results.tsv row. The proposer is held between
 * samples, so the auto-iterate and git CLI samples interleave: each round runs a few samples of
 * every variant, and the figure is the median of all rounds' samples (the machine is shared).
 *
 * Prints the medians, the ratio to the git CLI cycle with the same edit, the 10-file/1-file ratio
 * and the growth exponent against files (log(t_max/t_min)/log(files_max/files_min)). It measures,
 * it does not assert. `pnpm bench` in the package, or
 * `npx tsx --conditions=source bench/iteration.bench.ts [files...]`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { startHeldRun } from './held-run.js';

const PER_DIRECTORY = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SAMPLES_PER_ROUND = 3;
const identity = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];
const git = (cwd: string, ...args: string[]) => execFileSync('git', [...identity, ...args], { cwd, stdio: 'ignore' });
/** The 10 target files, in 10 directories spread over the tree. */
const targets = (files: number) =>
  Array.from(
    { length: 10 },
    (_, i) => `d${String(Math.floor((i * files) / 10 / PER_DIRECTORY)).padStart(4, '0')}/t${i}.txt`,
  );

function makeRepos(files: number): { dir: string; twin: string; root: string } {
  const root = mkdtempSync(join(tmpdir(), `loop-ai-bench-${files}-`));
  const dir = join(root, 'repo');
  for (let d = 0; d * PER_DIRECTORY < files; d += 1) {
    const sub = join(dir, `d${String(d).padStart(4, '0')}`);
    mkdirSync(sub, { recursive: true });
    for (let i = 0; i < PER_DIRECTORY && d * PER_DIRECTORY + i < files; i += 1)
      writeFileSync(join(sub, `f${i}.txt`), `file ${d}/${i}\n`);
  }
  for (const t of targets(files)) writeFileSync(join(dir, t), 'target\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  const twin = join(root, 'twin');
  execFileSync('git', ['clone', '-q', dir, twin], { stdio: 'ignore' });
  return { dir, twin, root };
}

let counter = 0;
/** With BENCH_PROFILE set: milliseconds spent in each rollback method (stderr at the end). */
const spent = new Map<string, number>();
const edit = (dir: string, files: number, count: number) => {
  counter += 1;
  for (const t of targets(files).slice(0, count)) writeFileSync(join(dir, t), `edit ${counter}\n`);
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function measure(files: number): Promise<Map<string, number>> {
  const built = Date.now();
  const { dir, twin, root } = makeRepos(files);
  const buildS = (Date.now() - built) / 1000;
  const held = await startHeldRun(dir, targets(files), {
    beforeStart: (rollback) => {
      if (!process.env.BENCH_PROFILE) return;
      const r = rollback as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      for (const name of ['checkpoint', 'changedPaths', 'commit', 'revert', 'keep']) {
        const original = r[name]!;
        r[name] = async (...a: unknown[]) => {
          const t = performance.now();
          try {
            return await original(...a);
          } finally {
            spent.set(name, (spent.get(name) ?? 0) + performance.now() - t);
          }
        };
      }
    },
  });
  const cli = (count: number) => () => {
    edit(twin, files, count);
    git(twin, 'add', '-A');
    git(twin, 'commit', '-q', '-m', 'x');
    git(twin, 'reset', '-q', '--hard', 'HEAD~1');
  };
  const samples = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round += 1) {
    const bench = new Bench({
      iterations: SAMPLES_PER_ROUND,
      time: 0,
      warmupIterations: round === 0 ? 1 : 0,
      warmupTime: 0,
      throws: true,
      retainSamples: true,
    });
    bench
      .add('auto-iterate, 1 file', () => held.step(1))
      .add('git CLI, 1 file', cli(1))
      .add('auto-iterate, 10 files', () => held.step(10))
      .add('git CLI, 10 files', cli(10));
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state !== 'completed') throw new Error(`${task.name}: ${result.state}`);
      samples.set(task.name, [...(samples.get(task.name) ?? []), ...(result.latency.samples ?? [])]);
    }
  }
  await held.stop();
  rmSync(root, { recursive: true, force: true });
  console.error(
    `${files} files: fixture ${buildS.toFixed(0)} s, ${samples.get('git CLI, 1 file')?.length} samples per variant`,
  );
  return new Map([...samples].map(([name, xs]) => [name, median(xs)]));
}

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const FILES = sizes.length > 0 ? sizes : [5000, 20000, 100000];
const started = Date.now();
const results = new Map<number, Map<string, number>>();
for (const files of FILES) results.set(files, await measure(files));

/** How the run command's cgroup is set up here: it decides a per-run cost of 0 to ~45 ms (docs/safety.md). */
function cgroupMode(): string {
  if (process.env.LOOP_CGROUP === 'off') return 'per-run cgroup off (LOOP_CGROUP=off)';
  let mounts = '';
  try {
    mounts = readFileSync('/proc/mounts', 'utf8');
  } catch {
    return 'no /proc/mounts';
  }
  const line = mounts.split('\n').find((l) => l.split(' ')[2] === 'cgroup2');
  if (line === undefined) return 'no cgroup v2 mount';
  const dynmods = line.includes('favordynmods')
    ? 'favordynmods (migrations cheap)'
    : 'no favordynmods (each run waits for an RCU grace period)';
  return `cgroup v2 at ${line.split(' ')[1]}, ` + `${dynmods}`;
}
/**
 * Median cost of creating one small file (open wx, write, close, rename) in a fresh directory
 * beside the bench repositories, microseconds: a git commit creates one file per object and lock,
 * and on some machines' /tmp this is 20x what it is elsewhere on the same disk (docs/benchmarks.md).
 */
function fileCreationUs(): number {
  const dir = mkdtempSync(join(tmpdir(), 'loop-ai-bench-create-'));
  const times: number[] = [];
  for (let i = 0; i < 200; i += 1) {
    const start = process.hrtime.bigint();
    writeFileSync(join(dir, `t${i}`), 'x'.repeat(200), { flag: 'wx' });
    renameSync(join(dir, `t${i}`), join(dir, `f${i}`));
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  rmSync(dir, { recursive: true, force: true });
  return times.sort((a, b) => a - b)[100] as number;
}
console.log(`run command cgroup: ${cgroupMode()}`);
console.log(
  `file creation in ${tmpdir()}: ${fileCreationUs().toFixed(0)} us median (create + 200-byte write + rename)`,
);
console.log(
  `one iteration = proposer edit (1 or 10 of 10 target files), inspect, ` +
    `commit, echo harness, revert, row (median ` +
    `of ${ROUNDS}x${SAMPLES_PER_ROUND} interleaved ` +
    `samples; ${process.version})\n`,
);
console.log(
  '| files | auto-iterate 1 file ms | git CLI 1 file ms | x git CLI | ' +
    'auto-iterate 10 files ms | git CLI 10 files ms | x git CLI | 10-file / ' +
    '1-file |',
);
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const [files, m] of results) {
  const a1 = m.get('auto-iterate, 1 file')!;
  const c1 = m.get('git CLI, 1 file')!;
  const a10 = m.get('auto-iterate, 10 files')!;
  const c10 = m.get('git CLI, 10 files')!;
  console.log(
    `| ${files} | ${a1.toFixed(1)} | ${c1.toFixed(1)} ` +
      `| ${(a1 / c1).toFixed(2)} | ${a10.toFixed(1)} | ${c10.toFixed(1)} ` +
      `| ${(a10 / c10).toFixed(2)} | ${(a10 / a1).toFixed(2)} |`,
  );
}
if (FILES.length > 1) {
  const lo = results.get(FILES[0]!)!;
  const hi = results.get(FILES[FILES.length - 1]!)!;
  const span = Math.log(FILES[FILES.length - 1]! / FILES[0]!);
  const exponent = (name: string) => (Math.log(hi.get(name)! / lo.get(name)!) / span).toFixed(2);
  console.log(
    `\ngrowth exponent against files (${FILES[0]} ` +
      `-> ${FILES[FILES.length - 1]}): auto-iterate 1 ` +
      `file ${exponent('auto-iterate, 1 file')}, 10 ` +
      `files ${exponent('auto-iterate, 10 files')}; git CLI 1 ` +
      `file ${exponent('git CLI, 1 file')}, 10 ` +
      `files ${exponent('git CLI, 10 files')}`,
  );
}
if (process.env.BENCH_PROFILE)
  console.error(
    'rollback ms by method (all samples):',
    Object.fromEntries([...spent].map(([k, v]) => [k, Math.round(v)])),
  );
console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
