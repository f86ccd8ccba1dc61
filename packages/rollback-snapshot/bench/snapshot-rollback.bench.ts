/**
 * Benchmark of the seed 002 snapshot rollback (src/snapshot-rollback.ts, src/mutable-surface.ts),
 * `pnpm bench` (issue 13). It measures and prints; it never asserts a time. Every baseline is
 * measured in the same run, on the same tree.
 *
 * Per size (files in a git repository, about 200 bytes each, 100 per directory; 10 tracked files
 * changed and 10 untracked added, so the surface is 20 files):
 * - `first scan`: `resolveMutableSurface` (the git CLI path, the default where git runs) against
 *   `git status --porcelain` (execFileSync), and isomorphic-git's path up to 5,000 files (it hashes
 *   every file: minutes at 50,000);
 * - `iteration`: one `checkpoint` + edit + `revert`, against a plain copy of the touched files
 *   (`fs.cp` with preserved timestamps to a temp folder, the edit, and `fs.cp` back): on the
 *   surface from git status (the 20 changed files; defaults) with 1 planned file and with no plan;
 *   and on a surface of EVERY file of the tree (explicit `files`, `detectUnplanned: false`) with 1
 *   and 10 planned files, and with no plan (the stat detector visits every mutable file: the
 *   default cost of a planned iteration on such a surface too).
 * Prints ratios and the growth exponent of each figure against files (least squares of log t on
 * log n). Sizes: BENCH_SIZES (comma list) or 1,000 / 5,000 / 20,000 / 50,000 / 100,000.
 *
 * Run from the package directory: `npx tsx --conditions=source bench/snapshot-rollback.bench.ts`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  formatRatio,
  interleave,
  loadLine,
  pairRatios,
  timeOf,
  type Interleaved,
  type Spread,
} from '@loop/internal-test-utils/bench';
import { createSnapshotRollback } from '../src/index.js';
import { resolveMutableSurface } from '../src/mutable-surface.js';

const PER_DIR = 100;
const identity = [
  '-c',
  'user.name=bench',
  '-c',
  'user.email=bench@example.com',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
];
const temps: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};
const fileName = (i: number) =>
  `d${String(Math.floor(i / PER_DIR)).padStart(4, '0')}/f${String(i).padStart(6, '0')}.ts`;

function makeRepo(files: number): { dir: string; paths: string[] } {
  const dir = temp(`snapshot-rollback-bench-${files}-`);
  const paths: string[] = [];
  for (let i = 0; i < files; i += 1) {
    const rel = fileName(i);
    if (i % PER_DIR === 0) mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), `export const v${i} = ${i};\n// ${'x'.repeat(170)}\n`);
    paths.push(rel);
  }
  const git = (...args: string[]) =>
    execFileSync('git', [...identity, ...args], { cwd: dir, stdio: 'ignore', maxBuffer: 1 << 28 });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  for (let i = 0; i < 10; i += 1)
    writeFileSync(join(dir, paths[i * Math.floor(files / 10)]!), `export const changed = ${i};\n`);
  for (let i = 0; i < 10; i += 1) writeFileSync(join(dir, `d0000/untracked-${i}.ts`), `export const added = ${i};\n`);
  git('status', '--porcelain'); // refresh git's index stat cache once, as a user's repository has it
  return { dir, paths };
}

interface Row {
  files: number;
  scan: number;
  git: number;
  iso?: number;
  plan1: number;
  plan10: number;
  noPlan: number;
  copy1: number;
  copy10: number;
  /** The git-status surface (20 files) in the same tree: 1 planned file, and no plan. */
  gitPlan1: number;
  gitNoPlan: number;
  /** Per-cycle ratios (variants interleaved, issue 31). */
  ratios: Record<'scan' | 'iso' | 'gitPlan1' | 'plan1' | 'plan10' | 'gitNoPlan' | 'noPlan', Spread | undefined>;
  load: string;
}

async function measure(files: number): Promise<Row> {
  const { dir, paths } = makeRepo(files);
  const heavy = files >= 50_000;
  // Interleaved (issue 31): each cycle runs every variant once; ratios are per cycle.
  const scanVariants: Record<string, () => unknown> = {
    scan: async () => {
      const s = await resolveMutableSurface({ workspace: dir });
      if (s.files.length !== 20 || s.via !== 'cli') throw new Error(`surface ${s.files.length} via ${s.via}`);
    },
    git: () => {
      execFileSync('git', ['status', '--porcelain'], { cwd: dir, maxBuffer: 1 << 28 });
    },
  };
  if (files <= 5000) {
    scanVariants.iso = async () => {
      await resolveMutableSurface({ workspace: dir, git: 'isomorphic-git' });
    };
  }
  const scans = await interleave(scanVariants, { cycles: heavy ? 5 : 10, warmup: 1 });

  // The per-iteration cost on a surface of every file in the tree.
  // detectUnplanned: false trusts the plan (no stat of the other mutable files); without a plan the
  // stat detector runs over every mutable file, which is also what a planned iteration costs by default.
  const rollback = createSnapshotRollback({
    workspace: dir,
    runDir: temp('snapshot-rollback-run-'),
    files: paths,
    retainIterations: 5,
    detectUnplanned: false,
  });
  await rollback.start();
  const scratch = temp('snapshot-rollback-plain-');
  let n = 0;
  const touched = (k: number) => paths.slice(0, k);
  const edit = (k: number) => {
    n += 1;
    for (const p of touched(k)) writeFileSync(join(dir, p), `edit ${n}\n`);
  };
  const cycle = async (k: number | undefined) => {
    const cp1 = await rollback.checkpoint(++n, k === undefined ? undefined : { files: touched(k), slug: 'bench' });
    edit(k ?? 1);
    await rollback.revert(cp1, { iteration: n });
  };
  const plain = async (k: number) => {
    for (const p of touched(k)) await cp(join(dir, p), join(scratch, p), { preserveTimestamps: true, force: true });
    edit(k);
    for (const p of touched(k)) await cp(join(scratch, p), join(dir, p), { preserveTimestamps: true, force: true });
  };
  // The usual case: the surface from git status (the 20 changed files), in the same tree.
  const usual = createSnapshotRollback({ workspace: dir, runDir: temp('snapshot-rollback-run-'), retainIterations: 5 });
  const usualFiles = (await usual.start()).files;
  const usualCycle = async (planned: boolean) => {
    const cp1 = await usual.checkpoint(++n, planned ? { files: [usualFiles[0]!], slug: 'bench' } : undefined);
    writeFileSync(join(dir, usualFiles[0]!), `edit ${n}\n`);
    await usual.revert(cp1, { iteration: n });
  };
  // Every variant restores the tree it found, so the two rollbacks can alternate in one tree.
  const iterations = await interleave(
    {
      plan1: () => cycle(1),
      copy1: () => plain(1),
      plan10: () => cycle(10),
      copy10: () => plain(10),
      noPlan: () => cycle(undefined),
      gitPlan1: () => usualCycle(true),
      gitNoPlan: () => usualCycle(false),
    },
    { cycles: 30, warmup: 3 },
  );
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  const m = (r: Interleaved, name: string) => timeOf(r, name).median;
  return {
    files,
    scan: m(scans, 'scan'),
    git: m(scans, 'git'),
    ...(files <= 5000 ? { iso: m(scans, 'iso') } : {}),
    plan1: m(iterations, 'plan1'),
    plan10: m(iterations, 'plan10'),
    noPlan: m(iterations, 'noPlan'),
    copy1: m(iterations, 'copy1'),
    copy10: m(iterations, 'copy10'),
    gitPlan1: m(iterations, 'gitPlan1'),
    gitNoPlan: m(iterations, 'gitNoPlan'),
    ratios: {
      scan: pairRatios(scans, 'scan', 'git'),
      iso: files <= 5000 ? pairRatios(scans, 'iso', 'git') : undefined,
      gitPlan1: pairRatios(iterations, 'gitPlan1', 'copy1'),
      plan1: pairRatios(iterations, 'plan1', 'copy1'),
      plan10: pairRatios(iterations, 'plan10', 'copy10'),
      gitNoPlan: pairRatios(iterations, 'gitNoPlan', 'copy1'),
      noPlan: pairRatios(iterations, 'noPlan', 'copy1'),
    },
    load: `scans ${loadLine(scans.load)}; iterations ${loadLine(iterations.load)}`,
  };
}

/** Least-squares slope of log(y) on log(x): the growth exponent (1 = linear). */
function exponent(rows: readonly Row[], pick: (r: Row) => number): number {
  const pts = rows.map((r) => [Math.log(r.files), Math.log(pick(r))] as const);
  const mx = pts.reduce((s, [x]) => s + x, 0) / pts.length;
  const my = pts.reduce((s, [, y]) => s + y, 0) / pts.length;
  const num = pts.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = pts.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return num / den;
}

const sizes = (process.env.BENCH_SIZES ?? '1000,5000,20000,50000,100000').split(',').map(Number);
const environment =
  `${new Date().toISOString().slice(0, 10)} · ${process.version} ` +
  `· ${process.platform}/${process.arch} · ${cpus().length} ` +
  `× ${cpus()[0]?.model.trim() ?? '?'} ` +
  `· ${execFileSync('git', ['--version'], { encoding: 'utf8' }).trim()}`;
try {
  const rows: Row[] = [];
  for (const files of sizes) {
    rows.push(await measure(files));
    console.error(`measured: ${JSON.stringify(rows.at(-1))}`); // kept if a later size fails
  }
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  console.log(
    `\n@loop/rollback-snapshot: first surface scan and per-iteration cost ` +
      `(${environment}); median ms; variants interleaved, ratios per cycle: ` +
      `median (min-max)\n`,
  );
  for (const r of rows) console.log(`${r.files} files: ${r.load}`);
  console.log('\nFirst scan (the git-status surface: 10 changed + 10 untracked files):\n');
  console.log('| files | first scan | `git status --porcelain` | scan / git | isomorphic-git scan (/ git) |');
  console.log('| ---: | ---: | ---: | ---: | ---: |');
  const x = (r: Spread | undefined) => (r === undefined ? '-' : formatRatio(r));
  for (const r of rows)
    console.log(
      `| ${r.files.toLocaleString('en')} | ${f(r.scan)} | ${f(r.git)} ` +
        `| ${x(r.ratios.scan)} ` +
        `| ${r.iso === undefined ? '-' : `${f(r.iso)} (${x(r.ratios.iso)})`} |`,
    );
  console.log(
    '\nOne iteration (checkpoint + edit + revert) against a plain copy of ' +
      'the touched files (fs.cp there and back, preserved timestamps):\n',
  );
  console.log(
    '| files | git surface (20 files): 1 planned | no plan | every file ' +
      'mutable, plan trusted: 1 planned | 10 planned | no plan (stat of every ' +
      'file) | plain copy: 1 file | 10 files | ratios to the plain copy (1 ' +
      'planned, git / every file; 10 planned; no plan, git / every file) |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const r of rows) {
    const q = r.ratios;
    console.log(
      `| ${r.files.toLocaleString('en')} | ${f(r.gitPlan1)} ` +
        `| ${f(r.gitNoPlan)} | ${f(r.plan1)} | ${f(r.plan10)} | ${f(r.noPlan)} ` +
        `| ${f(r.copy1)} | ${f(r.copy10)} | ${x(q.gitPlan1)} ` +
        `/ ${x(q.plan1)}; ${x(q.plan10)}; ${x(q.gitNoPlan)} / ${x(q.noPlan)} |`,
    );
  }
  if (rows.length > 1) {
    const e = (pick: (r: Row) => number) => exponent(rows, pick).toFixed(2);
    console.log(
      `\ngrowth exponent against files (t ∝ files^k): first ` +
        `scan ${e((r) => r.scan)}, git status ${e((r) => r.git)}; git surface: 1 ` +
        `planned ${e((r) => r.gitPlan1)}, no plan ${e((r) => r.gitNoPlan)}; every ` +
        `file mutable: 1 planned ${e((r) => r.plan1)}, 10 ` +
        `planned ${e((r) => r.plan10)}, no plan ${e((r) => r.noPlan)}; plain ` +
        `copy ${e((r) => r.copy1)}`,
    );
  }
} finally {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}
