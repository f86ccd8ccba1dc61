/**
 * Pruning benchmark (issue 27), on the demo's own training script: per seed, a pair of runs in
 * the same process, A then B on odd seeds and B then A on even ones (never blocks of one variant):
 *
 * - A: no pruning, batch schedule (the demo before issue 27), `--iterations` iterations;
 * - B: pruning and the async schedule (the demo's default now), run at least A's wall time, then
 *   until its best reaches A's final best or twice A's wall time has passed.
 *
 * Printed per pair and as min / median / max over pairs: the wall-time ratio B / A to reach A's
 * best (a pair where B never reaches it counts as the worst), B's best at A's wall time minus A's
 * best (negative = B better), B's candidates and how many were pruned, B's share of training time
 * with both cores busy (sampled every 250 ms from /proc: `node train.mjs` processes whose working
 * directory is this run's), and the false-prune rate: A's candidates that were kept but that the
 * incumbent-curve pruner would have stopped (A's curves are recorded with pruning off, so this is
 * replayed exactly on them). The load average is printed before and after.
 *
 * - C: Optuna 3.1 (Debian's python3-optuna, /usr/bin/python3) TPE with HyperbandPruner driving the
 *   same train.mjs through the same reports (bench/optuna_demo.py), n_jobs = K, for A's wall time,
 *   then, like B, until it reaches A's best or twice A's wall time. B's best at A's wall time minus
 *   C's is printed per pair (negative: ours better), and C's time to A's best over A's (the same
 *   target measured for the reference tuner). --no-optuna leaves C out.
 *
 * Flags: --seeds N (5; or A-B: seeds A..B), --iterations N (12), --steps N (3000), --parallel K (2),
 * --out DIR (a temp dir), --b-schedule async|batch (B's schedule, async: the demo's default),
 * --b-cost-aware (B's proposer ranks by expected improvement per predicted training second).
 * Run: npx tsx --conditions=source examples/ml-tuning/bench/pruning.bench.ts --seeds 2 --steps 1000
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { incumbentCurvePruner } from '@loop/core/policies';
import { runDemo } from '../src/demo.js';
import { PRUNE_MARGIN, PRUNE_WARMUP_SHARE, parseSchedule, reportEveryOf } from '../src/run-config.js';
import { replayPruner, type Replay } from './prune-replay.js';

const EXAMPLE = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The Optuna arm runs when asked (no `--no-optuna`) and Debian's python3 can import optuna. */
const OPTUNA =
  !process.argv.includes('--no-optuna') &&
  existsSync('/usr/bin/python3') &&
  spawnSync('/usr/bin/python3', ['-c', 'import optuna'], { stdio: 'ignore' }).status === 0;
if (!OPTUNA && !process.argv.includes('--no-optuna'))
  console.log('pruning bench: /usr/bin/python3 cannot import optuna (apt install python3-optuna): no Optuna arm');

/** What the Optuna arm reached: its best at A's wall time, and when (s) it first reached A's best, if it did. */
interface OptunaRun {
  readonly bestAtA: number;
  readonly reachedAt: number | undefined;
}

/**
 * Optuna TPE + HyperbandPruner on train.mjs from A's wall time `aSeconds` up to twice it, stopping
 * (no new trial) once a finished trial reached A's best `target` after A's time: B's rules.
 */
function optunaRun(seed: number, aSeconds: number, target: number): Promise<OptunaRun> {
  const out = join(ROOT, `C-${seed}`);
  mkdirSync(out, { recursive: true });
  const child = spawn(
    '/usr/bin/python3',
    [
      join(EXAMPLE, 'bench', 'optuna_demo.py'),
      ...['--template', join(EXAMPLE, 'template'), '--node-modules', join(EXAMPLE, 'node_modules')],
      ...['--out', out, '--steps', String(STEPS), '--report-every', String(reportEveryOf(STEPS))],
      ...['--seconds', String(2 * aSeconds), '--seed', String(seed), '--jobs', String(PARALLEL)],
      ...['--target', String(target), '--at-least', String(aSeconds)],
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => {
      writeFileSync(join(out, 'trials.jsonl'), text); // each trial's config and outcome, to compare searches
      const finished = text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { t: number; value: number | null })
        .filter((r): r is { t: number; value: number } => r.value !== null);
      resolve({
        bestAtA: Math.min(...finished.filter((r) => r.t <= aSeconds).map((r) => r.value)),
        reachedAt: finished.find((r) => r.value <= target && r.t <= 2 * aSeconds)?.t,
      });
    });
  });
}

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
// --seeds N runs seeds 1..N; --seeds A-B runs seeds A..B (to finish a run stopped part way).
const seedsText = args.includes('--seeds') ? (args[args.indexOf('--seeds') + 1] ?? '') : '5';
const seedRange = /^(\d+)(?:-(\d+))?$/.exec(seedsText);
if (!seedRange) throw new Error(`--seeds ${seedsText}: expected a count N or a range A-B`);
const FIRST_SEED = seedRange[2] === undefined ? 1 : Number(seedRange[1]);
const LAST_SEED = Number(seedRange[2] ?? seedRange[1]);
const SEEDS = LAST_SEED - FIRST_SEED + 1;
const ITERATIONS = flag('iterations', 12);
const STEPS = flag('steps', 3000);
const PARALLEL = flag('parallel', 2);
// --b-schedule batch: B prunes on the batch schedule (a diagnostic: B's proposals then see the rows A's
// would at the same iterations, so what pruning changes in B's search is seen apart from the async order).
const B_SCHEDULE = args.includes('--b-schedule')
  ? parseSchedule(args[args.indexOf('--b-schedule') + 1], '--b-schedule')
  : 'async';
// --b-cost-aware: B's proposer ranks candidates by expected improvement per predicted training second.
const B_COST_AWARE = args.includes('--b-cost-aware');
const outIndex = args.indexOf('--out');
const ROOT = outIndex >= 0 ? args[outIndex + 1]! : mkdtempSync(join(tmpdir(), 'loop-prune-bench-'));

interface Row {
  readonly iteration: number;
  readonly status: string;
  readonly score: number | null;
  readonly at: number;
  readonly pruned: boolean;
}
interface Run {
  readonly rows: Row[];
  readonly started: number;
  readonly best: number;
  readonly busy: number[];
}

/** Training processes (`node train.mjs`) whose working directory is under one of `roots`. */
function trainings(roots: readonly string[]): number {
  let n = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('train.mjs')) continue;
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (roots.some((r) => cwd.startsWith(r))) n += 1;
    } catch {
      // the process ended meanwhile
    }
  }
  return n;
}

async function once(
  variant: 'A' | 'B',
  seed: number,
  target?: { best: number; ms: number },
  capMs?: number,
): Promise<Run> {
  const out = join(ROOT, `${variant}-${seed}`);
  const copies = join(ROOT, `${variant}-${seed}-copies`);
  mkdirSync(copies, { recursive: true });
  process.env.TMPDIR = copies; // the working copies go here, so the sampler can tell this run's trainings
  const rows: Row[] = [];
  const busy: number[] = [];
  const controller = new AbortController();
  const started = Date.now();
  let best = Number.POSITIVE_INFINITY;
  const sampler = setInterval(() => {
    const n = trainings([out, copies]);
    if (n > 0 && rows.length > 0) busy.push(n); // after the baseline: candidates only
  }, 250);
  const print = (line: string) => {
    const m = /^iter +(\d+) +(keep|discard|crash) +(\S+)/.exec(line);
    if (!m) return;
    const score = Number(m[3]);
    const row = {
      iteration: Number(m[1]),
      status: m[2]!,
      score: Number.isFinite(score) ? score : null,
      at: Date.now() - started,
      pruned: line.includes('(pruned at step'),
    };
    rows.push(row);
    if (row.status === 'keep' && row.score !== null) best = Math.min(best, row.score);
    // B goes on to A's wall time at least (its best at equal time), then stops once it has reached A's best.
    if (target && ((best <= target.best && row.at >= target.ms) || row.at > 2 * target.ms)) controller.abort();
    if (capMs !== undefined && row.at > capMs) controller.abort();
  };
  try {
    await runDemo({
      out,
      seed,
      steps: STEPS,
      parallel: PARALLEL,
      resume: false,
      print,
      signal: controller.signal,
      // B with a target stops when it is reached (or at 2x A's time); B first runs until its time cap
      // (an iteration cap stopped it before A's wall time on fast seeds: 24 pruned-heavy rows in half of it).
      iterations: variant === 'A' ? ITERATIONS : target ? ITERATIONS * 4 : ITERATIONS * 20,
      prune: variant === 'B',
      schedule: variant === 'B' ? B_SCHEDULE : 'batch',
      costAware: variant === 'B' && B_COST_AWARE,
    });
  } finally {
    clearInterval(sampler);
  }
  return { rows, started, best, busy };
}

/** A's kept candidates the demo's incumbent-curve pruner would have stopped, replayed on A's curves. */
async function falsePrunes(seed: number): Promise<Replay> {
  const pruner = incumbentCurvePruner({ margin: PRUNE_MARGIN, warmupSteps: Math.round(STEPS * PRUNE_WARMUP_SHARE) });
  return replayPruner(join(ROOT, `A-${seed}`), pruner, STEPS, PARALLEL);
}

/** min / median / max; Infinity (a pair where B never reached A's best) sorts last and prints as "never". */
const q = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'never');
  return `min ${f(s[0]!)}  median ${f(mid)}  max ${f(s.at(-1)!)}`;
};

console.log(
  `pruning bench: ${SEEDS} seeds, ${ITERATIONS} iterations of ${STEPS} steps, K=${PARALLEL}, ` +
    `B ${B_SCHEDULE}${B_COST_AWARE ? ', cost-aware' : ''}; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; runs in ${ROOT}`,
);
const ratios: number[] = [];
const aTimes: number[] = [];
const gaps: number[] = [];
const busyShares: number[] = [];
const versusOptuna: number[] = [];
const optunaRatios: number[] = [];
let kept = 0;
let wouldPrune = 0;
let bCandidatesAll = 0;
let bPrunedAll = 0;
for (let seed = FIRST_SEED; seed <= LAST_SEED; seed++) {
  const order: ('A' | 'B')[] = seed % 2 ? ['A', 'B'] : ['B', 'A'];
  const runs: Partial<Record<'A' | 'B', Run>> = {};
  for (const v of order) {
    if (v === 'B' && !runs.A) {
      // B first: A's target and time are unknown, so B runs for 3x the longest A so far (10 minutes
      // before any) and is judged on its rows up to A's time.
      runs.B = await once('B', seed, undefined, aTimes.length > 0 ? 3 * Math.max(...aTimes) : 600_000);
    } else runs[v] = await once(v, seed, v === 'B' ? { best: runs.A!.best, ms: runs.A!.rows.at(-1)!.at } : undefined);
  }
  const a = runs.A!;
  const b = runs.B!;
  const aMs = a.rows.at(-1)!.at;
  aTimes.push(aMs);
  const bEnd = b.rows.at(-1)!.at;
  const reached = b.rows.find((r, i) =>
    b.rows.slice(0, i + 1).some((x) => x.status === 'keep' && x.score !== null && x.score <= a.best),
  );
  const ratio = reached ? reached.at / aMs : Number.NaN;
  const bestAtA = Math.min(
    ...b.rows.filter((r) => r.at <= aMs && r.status === 'keep' && r.score !== null).map((r) => r.score!),
  );
  const busy = b.busy.length > 0 ? b.busy.filter((n) => n >= PARALLEL).length / b.busy.length : Number.NaN;
  const fp = await falsePrunes(seed);
  const inATime = b.rows.filter((r) => r.at <= aMs);
  const bCandidates = inATime.filter((r) => r.iteration > 0).length;
  const bPruned = inATime.filter((r) => r.pruned).length;
  bCandidatesAll += bCandidates;
  bPrunedAll += bPruned;
  const c = OPTUNA ? await optunaRun(seed, aMs / 1000, a.best) : undefined;
  const optuna = c ? c.bestAtA : Number.NaN;
  if (Number.isFinite(optuna)) versusOptuna.push(bestAtA - optuna);
  const cRatio = c?.reachedAt !== undefined ? c.reachedAt / (aMs / 1000) : Infinity; // never: the worst
  if (c) optunaRatios.push(cRatio);
  const optunaReached = Number.isFinite(cRatio) ? `at ${cRatio.toFixed(2)}x` : 'never';
  kept += fp.kept;
  wouldPrune += fp.wouldPrune;
  ratios.push(Number.isFinite(ratio) ? ratio : Infinity); // never reached: the worst, and counted in the median
  gaps.push(bestAtA - a.best);
  if (Number.isFinite(busy)) busyShares.push(busy);
  console.log(
    `seed ${seed} (${order.join(' then ')}): A best ${a.best.toFixed(4)} ` +
      `in ${(aMs / 1000).toFixed(0)} s | B reached it ` +
      `at ${reached ? `${(reached.at / 1000).toFixed(0)} s (${ratio.toFixed(2)}x)` : 'never'}` +
      `${!reached && bEnd < aMs ? ` (B stopped at ${(bEnd / 1000).toFixed(0)} s, before A's time)` : ''} | ` +
      (`B best at A's time ${bestAtA.toFixed(4)} | both cores ` +
        `busy ${(busy * 100).toFixed(0)}% of B's candidate time | ` +
        `B: ${bCandidates} candidates in A's time, ${bPruned} pruned | `) +
      `A: ${fp.candidates} candidates, the pruner would stop ${fp.pruned}, ${fp.wouldPrune} of ${fp.kept} keeps | ` +
      (`Optuna TPE+Hyperband best at A's ` +
        `time ${Number.isFinite(optuna) ? optuna.toFixed(4) : '-'}` +
        (c ? `, reached A's best ${optunaReached}` : '') +
        ' | ' +
        `load ${loadavg()[0]!.toFixed(1)}`),
  );
}
console.log(
  `time to A's best, B / A, over all pairs: ${q(ratios)} ` +
    `(${ratios.filter(Number.isFinite).length} of ${SEEDS} pairs reached it)`,
);
console.log(`B best at A's wall time minus A best: ${q(gaps)} (negative: B better)`);
if (busyShares.length) console.log(`both cores busy, share of B's candidate time: ${q(busyShares)}`);
if (optunaRatios.length)
  console.log(
    `time to A's best, Optuna TPE+Hyperband / A: ${q(optunaRatios)} ` +
      `(${optunaRatios.filter(Number.isFinite).length} of ${optunaRatios.length} reached it within 2x A's time)`,
  );
if (versusOptuna.length)
  console.log(`B best minus Optuna TPE+Hyperband best, at A's wall time: ${q(versusOptuna)} (negative: ours better)`);
console.log(`B's candidates pruned (in A's wall time): ${bPrunedAll} of ${bCandidatesAll}`);
console.log(
  `false-prune rate (A's keeps the pruner would have ` +
    `stopped): ${wouldPrune} of ${kept} ` +
    `(${kept ? ((wouldPrune / kept) * 100).toFixed(1) : '0'}%)`,
);
console.log(
  `load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
process.exit(0);
