/**
 * Proposer benchmark (pnpm bench): our proposers (the TPE proposer, the hyperparameter mutator)
 * against Optuna's TPE and random samplers (Debian's python3-optuna, run with /usr/bin/python3 by
 * bench/optuna/run_optuna.py) on the same objectives: Branin, Hartmann-6 and a mixed space like the
 * ML demo's, each without noise and with Gaussian noise σ = 0.02, budgets 30 and 100.
 *
 * Rules (issue 17): every harness call counts (our baseline is one; Optuna's trials are all counted);
 * the returned best (our kept config after the run; Optuna's best trial by its noisy value) is
 * scored without noise; simple regret = best - optimum. Ours run through the real engine
 * (createLoop, in-memory artifact and rollback, strictImprovement), so keep/revert is part of what
 * is measured. Printed per objective, noise and budget: median regret and IQR per method and the
 * ratio of medians ours / Optuna TPE; then the geometric mean of the ratios. The held-back mixed
 * objective (bench/optuna/heldback.ts) is run last, reported apart, and not in the geometric mean.
 *
 * Flags: --seeds N (default 30), --only tpe|mutator, --objectives a,b, --optuna-cache FILE (reuse
 * Optuna's results between runs while exploring; they do not depend on our code), --tpe JSON (extra
 * createTpeProposer options, for exploring its settings).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFunctionHarness, createHyperparameterMutator, createLoop, createMemoryArtifact, createMemoryConfigAdapter, createMemoryRollback, createSeededRandom, createTpeProposer, createValueScorer, maxIterations, strictImprovement, type Proposer, type RandomSource } from '../src/index.js';
import { mixedHeldBack } from './optuna/heldback.js';
import { OBJECTIVES, type Config, type Objective } from './optuna/objectives.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const SEEDS = Number(flag('seeds') ?? 30);
const BUDGETS = [30, 100];
const NOISES = [0, 0.02];
const OURS = (flag('only') ?? 'tpe,mutator').split(',');
const ONLY_OBJECTIVES = flag('objectives')?.split(',');
const CACHE = flag('optuna-cache');
const TPE_OPTIONS = JSON.parse(flag('tpe') ?? '{}') as Record<string, number>;
const HERE = dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3';

interface Result {
  objective: string;
  noise: number;
  sampler: string;
  seed: number;
  budget: number;
  regret: number;
}

function gaussian(random: RandomSource): number {
  const u = 1 - random.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.next());
}

function python(request: unknown): Promise<{ optuna?: string; results?: Result[]; values?: number[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [join(HERE, 'optuna', 'run_optuna.py')], { cwd: join(HERE, 'optuna'), stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`run_optuna.py exited ${code}`))));
    child.stdin.end(JSON.stringify(request));
  });
}

/** Both languages must compute the same objective values. */
async function checkDefinitions(objectives: readonly Objective[]): Promise<void> {
  const r = createSeededRandom(99);
  const points = objectives.flatMap((o) =>
    Array.from({ length: 5 }, () => ({
      objective: o.name,
      config: Object.fromEntries(
        Object.entries(o.space).map(([k, p]) => {
          if ('values' in p) return [k, p.values[Math.floor(r.next() * p.values.length)]];
          if ('min' in p) {
            const v = p.scale === 'log' ? Math.exp(Math.log(p.min) + r.next() * (Math.log(p.max) - Math.log(p.min))) : p.min + r.next() * (p.max - p.min);
            return [k, p.integer ? Math.round(v) : v];
          }
          return [k, p.fixed];
        }),
      ),
    })),
  );
  const { values } = await python({ mode: 'check', points });
  points.forEach((p, i) => {
    const ours = objectives.find((o) => o.name === p.objective)!.f(p.config);
    if (Math.abs(ours - values![i]!) > 1e-9 * Math.max(1, Math.abs(ours))) throw new Error(`objective ${p.objective} differs between TS (${ours}) and Python (${values![i]}) at ${JSON.stringify(p.config)}`);
  });
}

async function optuna(objectives: readonly Objective[]): Promise<{ version: string; results: Result[] }> {
  const key = JSON.stringify({ objectives: objectives.map((o) => o.name), SEEDS, NOISES, BUDGETS });
  if (CACHE && existsSync(CACHE)) {
    const cached = JSON.parse(readFileSync(CACHE, 'utf8'));
    if (cached.key === key) return cached;
  }
  const seeds = Array.from({ length: SEEDS }, (_, i) => i + 1);
  const halves = [seeds.filter((s) => s % 2 === 1), seeds.filter((s) => s % 2 === 0)].filter((h) => h.length > 0);
  const request = (part: number[]) => ({ mode: 'run', objectives: objectives.map((o) => ({ name: o.name, space: o.space, optimum: o.optimum })), seeds: part, budget: Math.max(...BUDGETS), noise: NOISES, samplers: ['tpe', 'random'], checkpoints: BUDGETS });
  const parts = await Promise.all(halves.map((h) => python(request(h))));
  const out = { key, version: parts[0]!.optuna!, results: parts.flatMap((p) => p.results!) };
  if (CACHE) writeFileSync(CACHE, JSON.stringify(out));
  return out;
}

/** One run of our proposer through the engine: `budget` harness calls, the baseline included. */
async function ours(kind: string, objective: Objective, seed: number, sigma: number, budget: number): Promise<number> {
  const artifact = createMemoryArtifact<Config>(objective.start);
  const config = createMemoryConfigAdapter(artifact);
  const noise = createSeededRandom(seed * 7919 + 17);
  const proposer: Proposer =
    kind === 'tpe'
      ? createTpeProposer({ config, space: objective.space, seed, ...TPE_OPTIONS })
      : createHyperparameterMutator({ config, space: objective.space as never, random: createSeededRandom(seed) });
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer,
    harness: createFunctionHarness(objective.name, () => objective.f(artifact.get()) + (sigma > 0 ? sigma * gaussian(noise) : 0)),
    scorer: createValueScorer('minimize'),
    keepPolicy: strictImprovement(),
    stop: maxIterations(budget - 1),
  });
  await loop.run();
  return objective.f(artifact.get()) - objective.optimum;
}

const median = (xs: number[]) => quantile(xs, 0.5);
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo]! + (s[Math.min(s.length - 1, lo + 1)]! - s[lo]!) * (pos - lo);
}
const fmt = (x: number) => (x === 0 ? '0' : x < 1e-3 ? x.toExponential(2) : x.toPrecision(3));

async function measure(objectives: readonly Objective[], optunaResults: Result[]): Promise<number[]> {
  const rows: Result[] = [...optunaResults];
  for (const kind of OURS) {
    for (const o of objectives) {
      for (const noise of NOISES) {
        for (const budget of BUDGETS) {
          for (let seed = 1; seed <= SEEDS; seed++) rows.push({ objective: o.name, noise, sampler: kind, seed, budget, regret: await ours(kind, o, seed, noise, budget) });
        }
      }
    }
  }
  const methods = [...OURS, 'tpe-optuna', 'random-optuna'];
  const pick = (m: string, o: string, noise: number, budget: number) =>
    rows.filter((r) => r.objective === o && r.noise === noise && r.budget === budget && (m === 'tpe-optuna' ? r.sampler === 'tpe' && optunaResults.includes(r) : m === 'random-optuna' ? r.sampler === 'random' : r.sampler === m && !optunaResults.includes(r))).map((r) => r.regret);
  console.log(`| objective | noise σ | budget | ${methods.map((m) => `${m} median [IQR]`).join(' | ')} | ${OURS.map((m) => `${m} / TPE`).join(' | ')} |`);
  console.log(`| --- | ---: | ---: | ${methods.map(() => '---:').join(' | ')} | ${OURS.map(() => '---:').join(' | ')} |`);
  const ratios: number[][] = OURS.map(() => []);
  for (const o of objectives) {
    for (const noise of NOISES) {
      for (const budget of BUDGETS) {
        const cells = methods.map((m) => pick(m, o.name, noise, budget));
        const tpe = median(cells[OURS.length]!);
        const r = OURS.map((_, i) => median(cells[i]!) / tpe);
        r.forEach((x, i) => ratios[i]!.push(x));
        console.log(`| ${o.name} | ${noise} | ${budget} | ${cells.map((c) => `${fmt(median(c))} [${fmt(quantile(c, 0.25))}, ${fmt(quantile(c, 0.75))}]`).join(' | ')} | ${r.map((x) => `${x.toFixed(2)}x`).join(' | ')} |`);
      }
    }
  }
  return ratios.map((rs) => Math.exp(rs.reduce((a, x) => a + Math.log(Math.max(x, 1e-12)), 0) / rs.length));
}

const started = performance.now();
const objectives = OBJECTIVES.filter((o) => !ONLY_OBJECTIVES || ONLY_OBJECTIVES.includes(o.name));
const heldBack = !ONLY_OBJECTIVES || ONLY_OBJECTIVES.includes(mixedHeldBack.name) ? [mixedHeldBack] : [];
await checkDefinitions([...objectives, ...heldBack]);
const { version, results } = await optuna([...objectives, ...heldBack]);
console.log(`\n@loop/core: proposers vs Optuna ${version} (${SEEDS} seeds, budgets ${BUDGETS.join(' and ')} harness calls, regret = clean value of the returned best - optimum; ours through createLoop with strictImprovement)`);
if (objectives.length) {
  const geo = await measure(objectives, results.filter((r) => objectives.some((o) => o.name === r.objective)));
  console.log(`geometric mean of the ratios to Optuna TPE: ${OURS.map((m, i) => `${m} ${geo[i]!.toFixed(2)}x`).join(', ')}`);
}
if (heldBack.length) {
  console.log('\nheld-back objective (not used for tuning; not in the geometric mean above):');
  const geo = await measure(heldBack, results.filter((r) => r.objective === mixedHeldBack.name));
  console.log(`held-back geometric mean: ${OURS.map((m, i) => `${m} ${geo[i]!.toFixed(2)}x`).join(', ')}`);
}
console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
