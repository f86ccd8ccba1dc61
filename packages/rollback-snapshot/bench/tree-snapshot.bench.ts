/**
 * Benchmark of the whole-tree snapshot store (src/tree-snapshot.ts), `pnpm bench`. It measures and
 * prints; it never asserts a time. The baseline is measured in the same run.
 *
 * Trees of 1,000, 5,000 and 20,000 small files (about 200 bytes, in 50 directories), committed to
 * git. Per size:
 * - `cycle`: `snapshot()`, edit one file and add one, `restore()` (the flow's skipped-FIX path:
 *   what collie does around a FIX that fails), with a warm store (the store has seen the tree);
 * - `git`: the baseline, the same edit and add in a twin repository, then `git checkout -- .` and
 *   `git clean -fdq` with the git CLI (execFileSync);
 * - `snapshot` alone, on the unchanged tree;
 * - `first snapshot`: a new store's first snapshot (reads and copies every file once), timed once.
 *
 * Run from the package directory: `npx tsx --conditions=source bench/tree-snapshot.bench.ts`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  formatRatio,
  formatTime,
  interleave,
  loadLine,
  pairRatios,
  timeOf,
  type Interleaved,
  type Spread,
} from '@loop/internal-test-utils/bench';
import { createTreeSnapshotStore, diffTreeSnapshots } from '../src/index.js';

const DIRECTORIES = 50;
const EDITED = 'd00/f00000.txt';
const ADDED = 'd01/new.txt';
const identity = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];
const temps: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

function makeRepo(files: number): string {
  const dir = temp(`tree-snapshot-bench-${files}-`);
  for (let i = 0; i < files; i += 1) {
    const sub = join(dir, `d${String(i % DIRECTORIES).padStart(2, '0')}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${String(i).padStart(5, '0')}.txt`), `file ${i}\n${'x'.repeat(200)}\n`);
  }
  const git = (...args: string[]) => execFileSync('git', [...identity, ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

interface Row {
  files: number;
  first: number;
  snapshot: Spread;
  cycle: Spread;
  git: Spread;
  ratio: Spread;
  samples: number;
  load: Interleaved['load'];
}

async function measure(files: number, iterations: number): Promise<Row> {
  const ours = makeRepo(files);
  const theirs = makeRepo(files);
  const store = createTreeSnapshotStore({ root: ours, storeDir: temp('tree-snapshot-store-') });
  const t0 = performance.now();
  const base = await store.snapshot();
  const first = performance.now() - t0;
  let n = 0;
  const edit = (dir: string) => {
    n += 1;
    writeFileSync(join(dir, EDITED), `edit ${n}\n`);
    writeFileSync(join(dir, ADDED), `new ${n}\n`);
  };
  // Interleaved (issue 31): each cycle runs every variant once; the ratio is per cycle.
  const result = await interleave(
    {
      snapshot: async () => {
        await store.snapshot();
      },
      cycle: async () => {
        const snap = await store.snapshot();
        edit(ours);
        await store.restore(snap);
      },
      git: () => {
        edit(theirs);
        execFileSync('git', ['checkout', '--', '.'], { cwd: theirs, stdio: 'ignore' });
        execFileSync('git', ['clean', '-fdq'], { cwd: theirs, stdio: 'ignore' });
      },
    },
    { cycles: iterations, warmup: 2 },
  );
  const status = execFileSync('git', ['status', '--porcelain'], { cwd: theirs, encoding: 'utf8' });
  if (status !== '' || diffTreeSnapshots(base, await store.snapshot()).length !== 0)
    throw new Error('a tree was not restored');
  const t = (name: string) => timeOf(result, name);
  return {
    files,
    first,
    snapshot: t('snapshot'),
    cycle: t('cycle'),
    git: t('git'),
    ratio: pairRatios(result, 'cycle', 'git'),
    samples: iterations,
    load: result.load,
  };
}

const environment =
  `${new Date().toISOString().slice(0, 10)} · ${process.version} ` +
  `· ${process.platform}/${process.arch} · ${cpus().length} ` +
  `× ${cpus()[0]?.model.trim() ?? '?'} ` +
  `· ${execFileSync('git', ['--version'], { encoding: 'utf8' }).trim()}`;
try {
  const rows: Row[] = [];
  for (const [files, iterations] of [
    [1000, 30],
    [5000, 20],
    [20000, 10],
  ] as const) {
    rows.push(await measure(files, iterations));
  }
  console.log(
    `\n@loop/rollback-snapshot: whole-tree snapshot + restore, one file edited and one added (${environment})`,
  );
  console.log(
    'median ms (min-max); cycle = snapshot() + edit + restore() on a warm ' +
      'store; git = edit + `git checkout -- .` + `git clean -fdq`; interleaved, ' +
      'ratio per cycle\n',
  );
  for (const r of rows) console.log(`${r.files} files: ${loadLine(r.load)}`);
  console.log('| files | first snapshot (cold store) | snapshot | cycle | git | cycle / git, per cycle | cycles |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    console.log(
      `| ${r.files.toLocaleString('en')} | ${r.first.toFixed(0)} ` +
        `| ${formatTime(r.snapshot)} | ${formatTime(r.cycle)} ` +
        `| ${formatTime(r.git)} | ${formatRatio(r.ratio)} | ${r.samples} |`,
    );
  }
} finally {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
}
