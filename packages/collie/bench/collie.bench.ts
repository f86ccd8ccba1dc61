/**
 * Benchmarks of the collie pipeline (pnpm bench). It measures and prints; it never asserts a time.
 * Ratios are against a baseline measured in the same run.
 *
 * 1. Flow worktree snapshot / restore (the flow's whole-tree snapshot store: @loop/rollback-snapshot
 *    `createTreeSnapshotStore`, excluding SNAPSHOT_EXCLUDED, warm: the store has seen the tree) on git repositories of 100, 1,000 and
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
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createCommandHarness } from '@loop/core';
import {
  formatRatio,
  formatTime,
  interleave,
  loadLine,
  pairRatios,
  samplesOf,
  spread,
  timeOf,
  type Spread,
} from '@loop/internal-test-utils/bench';
import { createAutoiter, createScriptedAgent, type StepOutcome } from '../src/index.js';
import {
  createTreeSnapshotStore,
  diffTreeSnapshots as diffSnapshots,
  type TreeSnapshot,
} from '@loop/rollback-snapshot';
import { SNAPSHOT_EXCLUDED } from '../src/flow-pipeline.js';

const started = Date.now();
const DIRECTORIES = 50;
const EDITED = 'd00/f0000.txt';
const TRIGGER = 'echo "score: 1"';
const identity = ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false'];
const temps: string[] = [];

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

// ---------------------------------------------------------------- 1. snapshot / restore

interface Tree {
  readonly label: string;
  readonly files: number;
  readonly bigBytes: number;
}

function makeRepo(tree: Tree, big: Buffer | undefined): string {
  const dir = temp(`collie-bench-${tree.files}-`);
  for (let i = 0; i < tree.files; i += 1) {
    const sub = join(dir, `d${String(i % DIRECTORIES).padStart(2, '0')}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${String(i).padStart(4, '0')}.txt`), `file ${i}\n${'x'.repeat(200)}\n`);
  }
  if (big) writeFileSync(join(dir, 'big.bin'), big);
  const git = (...args: string[]) => execFileSync('git', [...identity, ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

function heldBytes(make: () => Promise<TreeSnapshot>): Promise<number> {
  gc();
  const before = process.memoryUsage();
  return make().then((snap) => {
    gc();
    const after = process.memoryUsage();
    const held = after.heapUsed - before.heapUsed + (after.arrayBuffers - before.arrayBuffers);
    if (snap.entries.size === 0) throw new Error('empty snapshot');
    return held;
  });
}

interface SnapshotRow {
  readonly tree: Tree;
  readonly entries: number;
  readonly heldMb: number;
  readonly ms: Record<'snapshot' | 'diff' | 'cycle' | 'git', number>;
  /** cycle / git, per cycle (interleaved, issue 31). */
  readonly ratio: Spread;
  readonly load: string;
  readonly samples: number;
}

async function measureSnapshot(tree: Tree, iterations: number): Promise<SnapshotRow> {
  const big = tree.bigBytes > 0 ? randomBytes(tree.bigBytes) : undefined;
  const ours = makeRepo(tree, big);
  const theirs = makeRepo(tree, big);
  let counter = 0;
  const edit = (dir: string) => writeFileSync(join(dir, EDITED), `edit ${(counter += 1)}\n`);

  const store = createTreeSnapshotStore({
    root: ours,
    storeDir: temp('collie-bench-store-'),
    exclude: SNAPSHOT_EXCLUDED,
  });
  const snapshotWorktree = (_root: string) => store.snapshot();
  const restoreWorktree = (snap: TreeSnapshot) => store.restore(snap);
  const base = await snapshotWorktree(ours);
  const heldMb = (await heldBytes(() => snapshotWorktree(ours))) / 1024 / 1024;
  const again = await snapshotWorktree(ours);
  // Interleaved (issue 31): each cycle runs every variant once; the ratio is per cycle.
  const result = await interleave(
    {
      snapshot: async () => {
        await snapshotWorktree(ours);
      },
      diff: () => {
        if (diffSnapshots(base, again).length !== 0) throw new Error('unexpected change');
      },
      cycle: async () => {
        const snap = await snapshotWorktree(ours);
        edit(ours);
        await restoreWorktree(snap);
      },
      git: () => {
        edit(theirs);
        execFileSync('git', ['checkout', '--', '.'], { cwd: theirs, stdio: 'ignore' });
        execFileSync('git', ['clean', '-fdq'], { cwd: theirs, stdio: 'ignore' });
      },
    },
    { cycles: iterations, warmup: 1 },
  );
  const git = execFileSync('git', ['status', '--porcelain'], { cwd: theirs, encoding: 'utf8' });
  if (git !== '' || diffSnapshots(base, await snapshotWorktree(ours)).length !== 0)
    throw new Error('a worktree was not restored');
  rmSync(ours, { recursive: true, force: true });
  rmSync(theirs, { recursive: true, force: true });
  const ms = (name: string) => timeOf(result, name).median;
  return {
    tree,
    entries: base.entries.size,
    heldMb,
    ms: { snapshot: ms('snapshot'), diff: ms('diff'), cycle: ms('cycle'), git: ms('git') },
    ratio: pairRatios(result, 'cycle', 'git'),
    load: loadLine(result.load),
    samples: iterations,
  };
}

// ---------------------------------------------------------------- 2. controller overhead

const stageOf = (o: StepOutcome): string => (o.kind === 'stage' ? o.stage : o.kind);
const ITER_STAGES = [
  'stage1',
  'stage2',
  'stage3',
  'stage4a',
  'stage4b',
  'stage5.0',
  'stage5.1',
  'stage5.2',
  'stage5.3',
  'stage6',
];

async function measureController(runs: number) {
  const byStage = new Map<string, number[]>();
  /** Per measured run: its iterations and the ms of its iteration steps. */
  const perRun: { iterations: number; iterMs: number; steps: number }[] = [];
  let iterations = 0;
  let stepsInIterations = 0;
  let lastOutcome: StepOutcome | undefined;
  let warm = 0;

  const autoiterRun = async () => {
    const root = temp('collie-bench-ctl-');
    mkdirSync(join(root, 'project'));
    const measured = (warm += 1) > 1; // the first run warms up
    const agent = createScriptedAgent(
      { discovery: ['1. sh test.sh (shell, 5): runs the suite'], observe: ['NO ISSUES'] },
      { repeatLast: true },
    );
    const a = createAutoiter({
      projectId: 'bench',
      sessionId: 'bench',
      projectDir: join(root, 'project'),
      task: 'benchmark the controller',
      files: { stateRoot: join(root, 'collie') },
      stop: { maxIterations: 10 },
      agent,
      asker: {
        name: 'fixed',
        ask: () => ({ Q1: TRIGGER, Q2: 'scalar_threshold 100', Q3: 'optimization', Q4: 'kind_aware', Q5: 'yes' }),
      },
      env: {},
      output: () => {},
      notifier: { name: 'none', notify: () => {} },
      escalate: () => {},
    });
    const seen = new Set<number>();
    let iterMs = 0;
    let steps = 0;
    for (let step = 0; step < 100; step += 1) {
      const t0 = performance.now();
      const outcome = await a.step();
      const ms = performance.now() - t0;
      lastOutcome = outcome;
      if (measured) {
        const key = stageOf(outcome);
        byStage.set(key, [...(byStage.get(key) ?? []), ms]);
        if (outcome.kind === 'stage') {
          seen.add(outcome.iter);
          stepsInIterations += 1;
          steps += 1;
        }
        if (ITER_STAGES.includes(key)) iterMs += ms;
      }
      if (outcome.kind === 'done' || outcome.kind === 'nested-refused') break;
    }
    if (measured) {
      iterations += seen.size;
      perRun.push({ iterations: seen.size, iterMs, steps });
    }
    rmSync(root, { recursive: true, force: true });
  };

  // Baseline: the same trigger through core's command harness, with the options collie passes it.
  const base = temp('collie-bench-harness-');
  mkdirSync(join(base, 'project'));
  let n = 0;
  const harnessRun = async () => {
    n += 1;
    const harness = createCommandHarness({
      command: TRIGGER,
      cwd: join(base, 'project'),
      logFile: join(base, `raw-${n}.log`),
      timeBudgetMs: 1_800_000,
      killTimeoutMs: 1_800_000,
      graceMs: 5000,
      env: { COLLIE_AUTOITER_ACTIVE: '1' },
      pidFile: join(base, 'trigger.pid'),
    });
    const record = await harness.run({ iteration: 1, signal: new AbortController().signal });
    if (record.exitCode !== 0) throw new Error(`trigger exit ${record.exitCode}`);
  };
  // Interleaved (issue 31): each cycle runs one whole autoiter run and one harness run.
  const result = await interleave(
    { 'autoiter run': autoiterRun, 'command harness': harnessRun },
    { cycles: runs, warmup: 1 },
  );
  rmSync(base, { recursive: true, force: true });
  if (lastOutcome?.kind !== 'done') throw new Error(`the run did not finish: ${JSON.stringify(lastOutcome)}`);
  const h = samplesOf(result, 'command harness');
  const perCycle = (f: (r: (typeof perRun)[number], h: number) => number) => spread(perRun.map((r, i) => f(r, h[i]!)));
  return {
    result,
    harness: timeOf(result, 'command harness'),
    ratios: {
      run: pairRatios(result, 'autoiter run', 'command harness'),
      iteration: perCycle((r, hm) => r.iterMs / r.iterations / hm),
      step: perCycle((r, hm) => r.iterMs / r.steps / hm),
      machine: perCycle((r, hm) => (r.iterMs / r.iterations - 2 * hm) / hm),
    },
    byStage,
    iterations,
    stepsInIterations,
    runs,
    status: lastOutcome.status,
  };
}

// ---------------------------------------------------------------- main

const gitVersion = execFileSync('git', ['--version'], { encoding: 'utf8' }).trim();
const environment = `${new Date().toISOString().slice(0, 10)} · ${process.version} · ${process.platform}/${process.arch} · ${cpus().length} × ${cpus()[0]?.model.trim() ?? '?'} · ${gitVersion}`;

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
    'median ms per operation; cycle = store.snapshot() + edit + store.restore() (warm store); git = edit + `git checkout -- .` + `git clean -fd`; interleaved, cycle / git per cycle: median (min-max)\n',
  );
  for (const r of rows) console.log(`${r.tree.label}: ${r.load}`);
  console.log(
    '| worktree | entries | held MB | snapshot | diff | restore (cycle - snapshot) | cycle | git | cycle / git | samples |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const f = (v: number) => v.toFixed(1);
    console.log(
      `| ${r.tree.label} | ${r.entries} | ${r.heldMb.toFixed(1)} | ${f(r.ms.snapshot)} | ${r.ms.diff.toFixed(2)} | ${f(r.ms.cycle - r.ms.snapshot)} | ${f(r.ms.cycle)} | ${f(r.ms.git)} | ${formatRatio(r.ratio)} | ${r.samples} |`,
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
    `one run = Stage 0 + recovery + ${c.iterations / c.runs} iterations (${c.status}, SC3) + terminal step; ${c.runs} runs interleaved with ${c.runs} harness runs, ${c.stepsInIterations / c.iterations} steps per iteration\n`,
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
    `| state machine per iteration (iteration - 2 harness runs) | ${(iterMs - 2 * h).toFixed(1)} (mean - 2 x median) | ${formatRatio(c.ratios.machine)} |`,
  );
  console.log('\n| step | calls | mean ms | x median harness run |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const key of ['stage0', 'recovered', ...ITER_STAGES, 'done']) {
    const xs = c.byStage.get(key);
    if (!xs) continue;
    console.log(`| ${key} | ${xs.length} | ${mean(xs).toFixed(1)} | ${(mean(xs) / h).toFixed(2)}x |`);
  }
} finally {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
}
console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
