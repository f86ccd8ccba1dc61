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
 * is measured. Everything is seeded (seeds `offset+1 .. offset+N` for the samplers and the noise),
 * so a re-run prints the same table. Printed per objective, noise and budget: median regret and IQR
 * per method, the ratio of medians ours / Optuna TPE and its 95% bootstrap interval; then the
 * geometric mean of the ratios. The held-back objectives (bench/optuna/heldback*.ts) are run last,
 * reported apart, and not in the first geometric mean.
 *
 * Flags: --seeds N (default 30), --seed-offset S (default 0: another block of seeds shows how much
 * a ratio moves), --only tpe,mutator (--only '' runs Optuna only), --objectives a,b, --noises 0,0.02, --budgets 30,100,
 * --optuna-cache FILE (reuse Optuna's runs, keyed by objective, sampler, seed and noise; they do
 * not depend on our code), --tpe JSON (extra createTpeProposer options), --dump FILE (every run's
 * regret as JSON).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createFunctionHarness,
  createLoop,
  createMemoryArtifact,
  createMemoryRollback,
  createValueScorer,
  maxIterations,
  strictImprovement,
  type Proposer,
} from '../src/index.js';
import { createHyperparameterMutator, createMemoryConfigAdapter, createTpeProposer } from '../src/proposers.js';
import { createSeededRandom, type RandomSource } from '../src/stats.js';
import { mixedHeldBack } from './optuna/heldback.js';
import { mixedHeldBack2 } from './optuna/heldback2.js';
import { mixedHeldBack3 } from './optuna/heldback3.js';
import { OBJECTIVES, type Config, type Objective } from './optuna/objectives.js';
import { bootstrapRatio, fmt, geometricMean, median, quantile } from './optuna/stats.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const list = (name: string, fallback: string) => (flag(name) ?? fallback).split(',');
const SEEDS = Number(flag('seeds') ?? 30);
const OFFSET = Number(flag('seed-offset') ?? 0);
const SEED_LIST = Array.from({ length: SEEDS }, (_, i) => OFFSET + i + 1);
const BUDGETS = list('budgets', '30,100').map(Number);
const NOISES = list('noises', '0,0.02').map(Number);
const OURS = list('only', 'tpe,mutator').filter((m) => m !== '');
const ONLY_OBJECTIVES = flag('objectives')?.split(',');
const CACHE = flag('optuna-cache');
const DUMP = flag('dump');
const TPE_OPTIONS = JSON.parse(flag('tpe') ?? '{}') as Record<string, unknown>;
const HERE = dirname(fileURLToPath(import.meta.url));
const PYTHON = '/usr/bin/python3';
/** Optuna always runs to 100 trials and reports both checkpoints, so its cache serves either budget. */
const OPTUNA_BUDGETS = [30, 100];

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
    const child = spawn(PYTHON, [join(HERE, 'optuna', 'run_optuna.py')], {
      cwd: join(HERE, 'optuna'),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`run_optuna.py exited ${code}`)),
    );
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
            const v =
              p.scale === 'log'
                ? Math.exp(Math.log(p.min) + r.next() * (Math.log(p.max) - Math.log(p.min)))
                : p.min + r.next() * (p.max - p.min);
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
    if (Math.abs(ours - values![i]!) > 1e-9 * Math.max(1, Math.abs(ours)))
      throw new Error(
        `objective ${p.objective} differs between TS (${ours}) and Python ` +
          `(${values![i]}) at ${JSON.stringify(p.config)}`,
      );
  });
}

/** Optuna's TPE and random runs for every objective, noise and seed, from the cache where it has them. */
async function optuna(objectives: readonly Objective[]): Promise<{ version: string; results: Result[] }> {
  const jobKey = (j: { objective: string; sampler: string; seed: number; noise: number }) =>
    `${j.objective}|${j.sampler}|${j.seed}|${j.noise}`;
  const cache: { version: string; runs: Record<string, Result[]> } =
    CACHE && existsSync(CACHE) ? JSON.parse(readFileSync(CACHE, 'utf8')) : { version: '', runs: {} };
  const jobs = objectives.flatMap((o) =>
    NOISES.flatMap((noise) =>
      ['tpe', 'random'].flatMap((sampler) => SEED_LIST.map((seed) => ({ objective: o.name, sampler, seed, noise }))),
    ),
  );
  const missing = jobs.filter((j) => !cache.runs[jobKey(j)]);
  if (missing.length > 0) {
    const halves = [missing.filter((_, i) => i % 2 === 0), missing.filter((_, i) => i % 2 === 1)].filter(
      (h) => h.length > 0,
    );
    const request = (part: typeof missing) => ({
      mode: 'run',
      objectives: objectives.map((o) => ({ name: o.name, space: o.space, optimum: o.optimum })),
      jobs: part,
      budget: Math.max(...OPTUNA_BUDGETS),
      checkpoints: OPTUNA_BUDGETS,
    });
    const parts = await Promise.all(halves.map((h) => python(request(h))));
    cache.version = parts[0]!.optuna!;
    for (const r of parts.flatMap((p) => p.results!)) (cache.runs[jobKey(r)] ??= []).push(r);
    if (CACHE) writeFileSync(CACHE, JSON.stringify(cache));
  }
  return {
    version: cache.version,
    results: jobs.flatMap((j) => cache.runs[jobKey(j)]!).filter((r) => BUDGETS.includes(r.budget)),
  };
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
    harness: createFunctionHarness(
      objective.name,
      () => objective.f(artifact.get()) + (sigma > 0 ? sigma * gaussian(noise) : 0),
    ),
    scorer: createValueScorer('minimize'),
    keep: { policy: strictImprovement() },
    stop: maxIterations(budget - 1),
  });
  await loop.run();
  return objective.f(artifact.get()) - objective.optimum;
}

const dumped: Result[] = [];

/** Runs ours on `objectives`, prints the table, returns the ratios to Optuna TPE per proposer of ours. */
async function measure(objectives: readonly Objective[], optunaResults: Result[]): Promise<number[][]> {
  const rows: Result[] = [];
  for (const kind of OURS) {
    for (const o of objectives) {
      for (const noise of NOISES) {
        for (const budget of BUDGETS) {
          for (const seed of SEED_LIST)
            rows.push({
              objective: o.name,
              noise,
              sampler: kind,
              seed,
              budget,
              regret: await ours(kind, o, seed, noise, budget),
            });
        }
      }
    }
  }
  dumped.push(...rows, ...optunaResults.map((r) => ({ ...r, sampler: `${r.sampler}-optuna` })));
  const methods = [...OURS, 'tpe-optuna', 'random-optuna'];
  const pick = (m: string, o: string, noise: number, budget: number) => {
    const from = m.endsWith('-optuna')
      ? optunaResults.filter((r) => r.sampler === m.replace('-optuna', ''))
      : rows.filter((r) => r.sampler === m);
    return from.filter((r) => r.objective === o && r.noise === noise && r.budget === budget).map((r) => r.regret);
  };
  console.log(
    `| objective | noise σ | budget ` +
      `| ${methods.map((m) => `${m} median [IQR]`).join(' | ')} ` +
      `| ${OURS.map((m) => `${m} / TPE [95% CI]`).join(' | ')} |`,
  );
  console.log(
    `| --- | ---: | ---: | ${methods.map(() => '---:').join(' | ')} | ${OURS.map(() => '---:').join(' | ')} |`,
  );
  const ratios: number[][] = OURS.map(() => []);
  for (const o of objectives) {
    for (const noise of NOISES) {
      for (const budget of BUDGETS) {
        const cells = methods.map((m) => pick(m, o.name, noise, budget));
        const tpe = cells[OURS.length]!;
        const shown = OURS.map((_, i) => {
          const ratio = median(cells[i]!) / median(tpe);
          ratios[i]!.push(ratio);
          const [lo, hi] = bootstrapRatio(cells[i]!, tpe);
          return `${ratio.toFixed(2)}x [${lo.toFixed(2)}, ${hi.toFixed(2)}]`;
        });
        const quartiles = cells.map(
          (c) => `${fmt(median(c))} [${fmt(quantile(c, 0.25))}, ` + `${fmt(quantile(c, 0.75))}` + `]`,
        );
        console.log(
          `| ${o.name} | ${noise} | ${budget} ` + (`| ${quartiles.join(' | ')}` + ` `) + `| ${shown.join(' | ')} |`,
        );
      }
    }
  }
  return ratios;
}

const started = performance.now();
const objectives = OBJECTIVES.filter((o) => !ONLY_OBJECTIVES || ONLY_OBJECTIVES.includes(o.name));
const heldBack = [mixedHeldBack, mixedHeldBack2, mixedHeldBack3].filter(
  (o) => !ONLY_OBJECTIVES || ONLY_OBJECTIVES.includes(o.name),
);
await checkDefinitions([...objectives, ...heldBack]);
const { version, results } = await optuna([...objectives, ...heldBack]);
console.log(
  `\n@loop/core: proposers vs Optuna ${version} ` +
    `(seeds ${SEED_LIST[0]}-${SEED_LIST.at(-1)}, ` +
    `budgets ${BUDGETS.join(' and ')} harness calls, regret = clean value of ` +
    `the returned best - optimum; ours through createLoop with ` +
    `strictImprovement)`,
);
const geo = (label: string, rs: number[][]) =>
  console.log(`${label}: ${OURS.map((m, i) => `${m} ${geometricMean(rs[i]!).toFixed(2)}x`).join(', ')}`);
const tuned = objectives.length
  ? await measure(
      objectives,
      results.filter((r) => objectives.some((o) => o.name === r.objective)),
    )
  : OURS.map(() => []);
if (objectives.length) geo('geometric mean of the ratios to Optuna TPE', tuned);
if (heldBack.length) {
  console.log('\nheld-back objectives (not used for tuning; not in the geometric mean above):');
  const held = await measure(
    heldBack,
    results.filter((r) => heldBack.some((o) => o.name === r.objective)),
  );
  geo('held-back geometric mean', held);
  if (objectives.length)
    geo(
      'geometric mean over every objective',
      OURS.map((_, i) => [...tuned[i]!, ...held[i]!]),
    );
}
if (DUMP) writeFileSync(DUMP, JSON.stringify(dumped));
console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
