/**
 * Benchmark of one keep/revert cycle (edit one file, commit, revert) on repositories of 1,000 and
 * 5,000 small files spread over 50 directories, committed with the git CLI:
 *
 * - `rollback-git (paths)`: this adapter with `paths: ['d00']` (the directory of the edited file);
 * - `rollback-git (whole tree)`: this adapter without `paths` (scans the whole working tree);
 * - `git CLI`: `git commit -qam` then `git reset -q --hard HEAD~1`;
 * - `naive isomorphic-git`: `add` + `commit`, then `writeRef` force + `checkout` force;
 * - `... dir rename`: the cycle renames directory `d01` (20 or 100 files) instead of editing a
 *   file (issue 12: its revert used to fall back to a full checkout); the git CLI twin is `mv`,
 *   `git add -A`, `git commit -qm`, `git reset -q --hard HEAD~1`.
 *
 * The variants are interleaved (issue 31): each cycle runs every variant once, in an order that
 * rotates per cycle. Prints the median (min-max) milliseconds per cycle, the per-cycle ratio to the
 * git CLI (median, min, max) and the load. It measures, it does not assert. Run from the package directory:
 * `npx tsx --conditions=source bench/rollback-git.bench.ts` (about two minutes on a quiet machine).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import {
  formatRatio,
  formatTime,
  interleave,
  loadLine,
  pairRatios,
  timeOf,
  type Spread,
} from '@loop/internal-test-utils/bench';
import { createGitResetRollback } from '../src/index.js';

const DIRECTORIES = 50;
const EDITED = 'd00/f0000.txt';
const identity = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];

function makeRepo(files: number): string {
  const dir = mkdtempSync(join(tmpdir(), `loop-bench-${files}-`));
  for (let i = 0; i < files; i += 1) {
    const sub = join(dir, `d${String(i % DIRECTORIES).padStart(2, '0')}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${String(i).padStart(4, '0')}.txt`), `file ${i}\n${'x'.repeat(200)}\n`);
  }
  const run = (...args: string[]) => execFileSync('git', [...identity, ...args], { cwd: dir, stdio: 'ignore' });
  run('init', '-q', '-b', 'main');
  run('add', '-A');
  run('commit', '-q', '-m', 'initial');
  return dir;
}

interface Row {
  readonly variant: string;
  readonly files: number;
  readonly time: Spread;
  readonly ratio: Spread;
  readonly cycles: number;
  readonly fallbacks: number;
}

async function measure(files: number, cycles: number): Promise<Row[]> {
  const dirs: string[] = [];
  const repo = () => {
    const dir = makeRepo(files);
    dirs.push(dir);
    return dir;
  };
  const fallbacks = new Map<string, number>();
  let counter = 0;
  const edit = (dir: string) => writeFileSync(join(dir, EDITED), `edit ${(counter += 1)}\n`);

  const adapter = async (name: string, paths: string[] | undefined) => {
    const dir = repo();
    const rollback = createGitResetRollback({ dir, branch: 'auto-iterate/bench', ...(paths ? { paths } : {}) });
    await rollback.start();
    let iteration = 0;
    return async () => {
      iteration += 1;
      const cp = await rollback.checkpoint(iteration);
      edit(dir);
      const id = await rollback.commit(cp, { iteration, attempt: 0, description: `edit ${iteration}` });
      await rollback.revert(cp, { iteration, candidateId: id });
      if (rollback.lastRestore()?.fallback) fallbacks.set(name, (fallbacks.get(name) ?? 0) + 1);
    };
  };

  const cliDir = repo();
  const cli = () => {
    edit(cliDir);
    execFileSync('git', [...identity, 'commit', '-qam', 'edit'], { cwd: cliDir, stdio: 'ignore' });
    execFileSync('git', ['reset', '-q', '--hard', 'HEAD~1'], { cwd: cliDir, stdio: 'ignore' });
  };

  const naiveDir = repo();
  const naive = async () => {
    const cache = {};
    const args = { fs, dir: naiveDir, cache };
    edit(naiveDir);
    await git.add({ ...args, filepath: [EDITED] });
    const oid = await git.commit({ ...args, message: 'edit', author: { name: 'bench', email: 'bench@example.com' } });
    const { commit } = await git.readCommit({ ...args, oid });
    const parent = commit.parent[0];
    if (parent === undefined) throw new Error('no parent');
    await git.writeRef({ ...args, ref: 'refs/heads/main', value: parent, force: true });
    await git.checkout({ ...args, ref: 'main', force: true });
  };

  const renameDir = (dir: string) => fs.renameSync(join(dir, 'd01'), join(dir, 'd01-renamed'));
  const renameAdapter = async () => {
    const dir = repo();
    const rollback = createGitResetRollback({ dir, branch: 'auto-iterate/bench' });
    await rollback.start();
    let iteration = 0;
    return async () => {
      iteration += 1;
      const cp = await rollback.checkpoint(iteration);
      renameDir(dir);
      const id = await rollback.commit(cp, { iteration, attempt: 0, description: `rename ${iteration}` });
      await rollback.revert(cp, { iteration, candidateId: id });
      if (rollback.lastRestore()?.fallback)
        fallbacks.set(
          'rollback-git dir rename (whole tree)',
          (fallbacks.get('rollback-git dir rename (whole tree)') ?? 0) + 1,
        );
    };
  };
  const cliRenameDir = repo();
  const cliRename = () => {
    renameDir(cliRenameDir);
    execFileSync('git', ['add', '-A'], { cwd: cliRenameDir, stdio: 'ignore' });
    execFileSync('git', [...identity, 'commit', '-qm', 'rename'], { cwd: cliRenameDir, stdio: 'ignore' });
    execFileSync('git', ['reset', '-q', '--hard', 'HEAD~1'], { cwd: cliRenameDir, stdio: 'ignore' });
  };

  const variants = {
    'rollback-git (paths)': await adapter('rollback-git (paths)', ['d00']),
    'rollback-git (whole tree)': await adapter('rollback-git (whole tree)', undefined),
    'git CLI': cli,
    'naive isomorphic-git': naive,
    'rollback-git dir rename (whole tree)': await renameAdapter(),
    'git CLI dir rename': cliRename,
  };
  // Interleaved (issue 31): each cycle runs every variant once, so a ratio compares a pair measured
  // back to back, not two blocks that met different loads.
  const result = await interleave(variants, { cycles, warmup: 1 });
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  console.log(`${files} files: ${loadLine(result.load)}`);
  return Object.keys(variants).map((variant) => {
    const base = variant.includes('dir rename') ? 'git CLI dir rename' : 'git CLI';
    return {
      variant,
      files,
      time: timeOf(result, variant),
      ratio: pairRatios(result, variant, base),
      cycles,
      fallbacks: fallbacks.get(variant) ?? 0,
    };
  });
}

const started = Date.now();
// 40 cycles at 1,000 files and 20 at 5,000 (`BENCH_CYCLES` sets the first, the second is half): with 20 and 10,
// two quiet runs' medians differed by up to a quarter.
const CYCLES = Number(process.env.BENCH_CYCLES ?? 40);
const rows = [...(await measure(1000, CYCLES)), ...(await measure(5000, Math.max(1, Math.round(CYCLES / 2))))];
console.log(
  `\none cycle = edit ${EDITED}, commit, revert (${process.version}, ` +
    `isomorphic-git ${git.version()}); variants interleaved cycle by cycle\n`,
);
console.log(
  '| files | variant | ms/cycle median (min-max) | x git CLI, per cycle: median (min-max) | cycles | fallbacks |',
);
console.log('| ---: | --- | ---: | ---: | ---: | ---: |');
for (const row of rows)
  console.log(
    `| ${row.files} | ${row.variant} | ${formatTime(row.time)} ` +
      `| ${formatRatio(row.ratio)} | ${row.cycles} | ${row.fallbacks} |`,
  );
console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
