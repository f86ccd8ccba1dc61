/**
 * Issue 31, item 1: a whole auto-iterate iteration (instant harness `echo "score: 1"`, so every
 * candidate is discarded and reverted) with a 1-file and a 10-file edit, with the change journal
 * (`watch: true`, the default) and without it (`watch: false`: every scan walks the whole tree,
 * as before issue 31), against two git CLI cycles on a twin repository doing the same edit:
 * `git add <the edited files>; git commit; git reset --hard HEAD~1` (a user who knows what changed)
 * and `git add -A; git commit; git reset --hard HEAD~1` (git stats every file), at 1k, 5k, 20k and
 * 100k files (100 per directory).
 *
 * Interleaved pair by pair: each cycle runs the four variants once per edit size, in an order that
 * rotates from cycle to cycle, and each ratio is taken within the cycle (A and B measured seconds
 * apart); the bench prints min / median / max of the per-cycle ratios and the load average before
 * and after each size (os.loadavg). It measures, it does not assert.
 *
 * `pnpm bench` in the package, or `npx tsx --conditions=source bench/change-detection.bench.ts [files...]`
 * (`BENCH_CYCLES`, default 40; `BENCH_WARMUP` uncounted cycles first, default 5).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLine, spread } from '@loop/internal-test-utils/bench';
import { startHeldRun } from './held-run.js';

const PER_DIRECTORY = 100;
const CYCLES = Number(process.env.BENCH_CYCLES ?? 40);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const identity = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];
const git = (cwd: string, ...args: string[]) => execFileSync('git', [...identity, ...args], { cwd, stdio: 'ignore' });
/** The 10 target files, in 10 directories spread over the tree. */
const targets = (files: number) =>
  Array.from(
    { length: 10 },
    (_, i) => `d${String(Math.floor((i * files) / 10 / PER_DIRECTORY)).padStart(4, '0')}/t${i}.txt`,
  );

/** The fixture's source repository: its objects loose (the clones below are what is measured). */
function makeRepo(root: string, files: number): string {
  const dir = join(root, 'source');
  for (let d = 0; d * PER_DIRECTORY < files; d += 1) {
    const sub = join(dir, `d${String(d).padStart(4, '0')}`);
    mkdirSync(sub, { recursive: true });
    for (let i = 0; i < PER_DIRECTORY && d * PER_DIRECTORY + i < files; i += 1)
      writeFileSync(join(sub, `f${i}.txt`), `file ${d}/${i}\n`);
  }
  for (const t of targets(files)) writeFileSync(join(dir, t), 'target\n');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  // No `git gc --auto` in the background packing 100,000 loose objects while we measure.
  git(dir, '-c', 'gc.auto=0', 'commit', '-q', '-m', 'initial');
  return dir;
}

/**
 * A clone through git's pack transport (`--no-local`): packed, as a user's cloned repository is. Not
 * `git repack -ad` in place: after it deleted 100,000 loose objects every file creation in the
 * repository was slow (a marker file's create took 1.1 ms instead of 0.07 ms, still after 30 s).
 */
function clone(from: string, to: string): string {
  execFileSync('git', ['clone', '-q', '--no-local', from, to], { stdio: 'ignore' });
  return to;
}

let counter = 0;
const edit = (dir: string, files: number, count: number): string[] => {
  counter += 1;
  const edited = targets(files).slice(0, count);
  for (const t of edited) writeFileSync(join(dir, t), `edit ${counter}\n`);
  return edited;
};

const timed = async (fn: () => unknown): Promise<number> => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};

type Variant = 'watch' | 'walk' | 'git add <files>' | 'git add -A';
const VARIANTS: Variant[] = ['watch', 'walk', 'git add <files>', 'git add -A'];

async function measure(files: number) {
  const root = mkdtempSync(join(tmpdir(), `loop-cd-bench-${files}-`));
  const built = performance.now();
  const source = makeRepo(root, files);
  const base = clone(source, join(root, 'repo'));
  const walkDir = clone(source, join(root, 'walk'));
  const twin = clone(source, join(root, 'twin'));
  const buildS = (performance.now() - built) / 1000;
  const watchRun = await startHeldRun(base, targets(files), { watch: true });
  const walkRun = await startHeldRun(walkDir, targets(files), { watch: false });
  const cli = (count: number, all: boolean) => () => {
    const edited = edit(twin, files, count);
    git(twin, 'add', ...(all ? ['-A'] : edited));
    git(twin, 'commit', '-q', '-m', 'x');
    git(twin, 'reset', '-q', '--hard', 'HEAD~1');
  };
  const run: Record<Variant, (count: number) => () => unknown> = {
    watch: (count) => () => watchRun.step(count),
    walk: (count) => () => walkRun.step(count),
    'git add <files>': (count) => cli(count, false),
    'git add -A': (count) => cli(count, true),
  };
  // Warm-up cycles of each, not counted: the watch's first whole-tree walk, the caches, and the
  // engine's code compiled as in a run of hundreds of iterations (the first size's first cycles
  // otherwise measure V8 tiering up; the git CLI starts a new process each time).
  for (let i = 0; i < WARMUP; i += 1) for (const count of [1, 10]) for (const v of VARIANTS) await run[v](count)();
  const loadBefore = loadLine();
  const times = new Map<string, number[]>();
  for (let cycle = 0; cycle < CYCLES; cycle += 1) {
    for (const count of [1, 10]) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + cycle) % VARIANTS.length]!);
      for (const v of order) {
        const key = `${v}|${count}`;
        times.set(key, [...(times.get(key) ?? []), await timed(run[v](count))]);
      }
    }
  }
  const report = watchRun.rollback.watchReport();
  await watchRun.stop();
  await walkRun.stop();
  rmSync(root, { recursive: true, force: true });
  console.error(`${files} files: fixture ${buildS.toFixed(0)} s; watch scans: ${JSON.stringify(report)}`);
  return { times, loadBefore, loadAfter: loadLine() };
}

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const FILES = sizes.length > 0 ? sizes : [1000, 5000, 20000, 100000];
console.log(
  `one iteration = proposer edit (1 or 10 files), inspect, commit, echo ` +
    `harness, revert, row; ${WARMUP} warm-up + ${CYCLES} cycles, ratios per cycle (min / median / ` +
    `max); ${process.version}`,
);
console.log(
  'watch: auto-iterate with the change journal (default); walk: watch: ' +
    'false (every scan stats every file, as before issue 31)\n',
);
console.log(
  '| files | edit | watch ms | walk ms | git add <files> ms | git add -A ' +
    'ms | watch / git add <files> | watch / git add -A | walk / git add ' +
    '<files> | watch / walk | load before / after |',
);
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
const fmt = (q: { min: number; median: number; max: number }) =>
  `${q.median.toFixed(2)} (${q.min.toFixed(2)}-${q.max.toFixed(2)})`;
const medians = new Map<string, number>();
for (const files of FILES) {
  const { times, loadBefore, loadAfter } = await measure(files);
  for (const count of [1, 10]) {
    const t = (v: Variant) => times.get(`${v}|${count}`)!;
    const ratio = (a: Variant, b: Variant) => spread(t(a).map((x, i) => x / t(b)[i]!));
    const med = (v: Variant) => spread(t(v)).median;
    medians.set(`${files}|${count}`, med('watch'));
    console.log(
      `| ${files} | ${count} | ${med('watch').toFixed(1)} ` +
        `| ${med('walk').toFixed(1)} | ${med('git add <files>').toFixed(1)} ` +
        `| ${med('git add -A').toFixed(1)} ` +
        `| ${fmt(ratio('watch', 'git add <files>'))} ` +
        `| ${fmt(ratio('watch', 'git add -A'))} ` +
        `| ${fmt(ratio('walk', 'git add <files>'))} ` +
        `| ${fmt(ratio('watch', 'walk'))} | ${loadBefore} / ${loadAfter} |`,
    );
  }
}
if (FILES.length > 1) {
  for (const count of [1, 10]) {
    const steps = FILES.slice(1).map((f, i) => {
      const prev = FILES[i]!;
      const per10x = (medians.get(`${f}|${count}`)! / medians.get(`${prev}|${count}`)!) ** (1 / Math.log10(f / prev));
      return `${prev}->${f}: ${per10x.toFixed(2)}x`;
    });
    const first = FILES[0]!;
    const last = FILES[FILES.length - 1]!;
    const overall =
      (medians.get(`${last}|${count}`)! / medians.get(`${first}|${count}`)!) ** (1 / Math.log10(last / first));
    console.log(
      `\nwatch, ${count}-file edit, cost growth per 10x files ` +
        `(medians): ${steps.join(', ')}; ${first}->${last}: ${overall.toFixed(2)}x`,
    );
  }
}
