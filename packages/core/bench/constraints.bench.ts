/**
 * Constraints and multi-objective benchmark (pnpm bench; issue 28): our TPE proposer with
 * `constraints: recordedViolations` through the real engine (createLoop, in-memory artifact and
 * rollback, core's `withConstraints(strictImprovement(), expressions)` blocking an infeasible
 * candidate and recording each row's violations) against Debian's Optuna 3.1
 * `TPESampler(constraints_func=...)` on a Branin whose disk constraint cuts away all three minima
 * and on the ML demo's mixed space under a parameter and a time budget (both cut away the
 * unconstrained optimum); and `paretoKeep` + the TPE proposer with `objectives` against Optuna's
 * multi-objective TPE (MOTPE) and NSGA-II on the mixed space's loss against its training seconds.
 *
 * Rules: every harness call counts (our baseline, a feasible start config, is one); seeds 1..N for
 * the samplers and the noise (σ on the objective only; constraint metrics are exact); our runs go
 * to 100 calls and the 30-call figures are the same runs' incumbent after 30 calls (a proposal
 * depends only on the rows before it). Regret among feasible points: the clean value of the
 * returned best minus the constrained optimum: ours is the incumbent (always feasible under the
 * blocking keep); Optuna's is its feasible trial with the best noisy value (infinite when none).
 * "Infeasible incumbent": the run ends on an infeasible state (ours) or 3.1's `best_trial` (the best
 * noisy value, constraints ignored) is infeasible. Two objectives: the hypervolume of the clean
 * values of the reported front (ours `paretoFront` of the rows, Optuna's `best_trials`) against the
 * reference point (loss 1, 40 s), at 100 calls. Medians with 95% seeded-bootstrap intervals.
 *
 * Flags: --seeds N (30), --noises 0,0.02, --budgets 30,100, --only constrained,pareto, --problems
 * branin-disk,mixed-budget, --optuna-cache FILE, --tpe JSON (extra createTpeProposer options),
 * --model-constraints false (the proposer does not see the constraints; the keep still blocks).
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
  type IterationRecord,
  type KeepPolicy,
} from '../src/index.js';
import {
  hypervolume,
  paretoFront,
  paretoKeep,
  recordedViolations,
  totalViolation,
  withConstraints,
} from '../src/policies.js';
import { createMemoryConfigAdapter, createTpeProposer } from '../src/proposers.js';
import { createSeededRandom, type RandomSource } from '../src/stats.js';
import {
  braninConstrained,
  constrainedOptimum,
  mixedConstrained,
  mixedTwoObjective,
  type ConstrainedObjective,
} from './optuna/constrained.js';
import type { Config } from './optuna/objectives.js';
import { bootstrapMedian, bootstrapRatio, fmt, median } from './optuna/stats.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const SEEDS = Array.from({ length: Number(flag('seeds') ?? 30) }, (_, i) => i + 1);
const NOISES = (flag('noises') ?? '0,0.02').split(',').map(Number);
const ONLY = (flag('only') ?? 'constrained,pareto').split(',');
const CACHE = flag('optuna-cache');
const BUDGETS = (flag('budgets') ?? '30,100').split(',').map(Number);
const ONLY_PROBLEMS = flag('problems')?.split(',');
const TPE_OPTIONS = JSON.parse(flag('tpe') ?? '{}') as Record<string, unknown>;
/** `--model-constraints false`: the proposer does not see the constraints (the keep policy still blocks). */
const MODEL_CONSTRAINTS = flag('model-constraints') !== 'false';
/**
 * `--local-keep`: the bench's own blocking keep policy (the first measurements) instead of core's `withConstraints`.
 */
const LOCAL_KEEP = args.includes('--local-keep');
const HERE = dirname(fileURLToPath(import.meta.url));
const PROBLEMS = [braninConstrained, mixedConstrained].filter((o) => !ONLY_PROBLEMS || ONLY_PROBLEMS.includes(o.name));
const OBJECTIVES = [
  { metric: 'loss', direction: 'minimize' },
  { metric: 'train_s', direction: 'minimize' },
] as const;

function gaussian(random: RandomSource): number {
  const u = 1 - random.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.next());
}

function python(
  request: unknown,
): Promise<{ optuna?: string; results?: Record<string, unknown>[]; values?: number[][] }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/python3', [join(HERE, 'optuna', 'run_constrained.py')], {
      cwd: join(HERE, 'optuna'),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`run_constrained.py exited ${code}`)),
    );
    child.stdin.end(JSON.stringify(request));
  });
}

/** Both languages must compute the same objective and constraint values. */
async function checkDefinitions(): Promise<void> {
  const r = createSeededRandom(7);
  const draw = (space: Record<string, unknown>): Config =>
    Object.fromEntries(
      Object.entries(space).map(([k, p]) => {
        const s = p as { values?: unknown[]; min?: number; max?: number; scale?: string; integer?: boolean };
        if (s.values) return [k, s.values[Math.floor(r.next() * s.values.length)]];
        const v =
          s.scale === 'log'
            ? Math.exp(Math.log(s.min!) + r.next() * (Math.log(s.max!) - Math.log(s.min!)))
            : s.min! + r.next() * (s.max! - s.min!);
        return [k, s.integer ? Math.round(v) : v];
      }),
    );
  const points = [
    ...PROBLEMS.map((o) => ({ problem: o.name, space: o.space })),
    { problem: mixedTwoObjective.name, space: mixedTwoObjective.space },
  ].flatMap((p) => Array.from({ length: 5 }, () => ({ problem: p.problem, config: draw(p.space) })));
  const { values } = await python({ mode: 'check', points });
  points.forEach((p, i) => {
    const o = PROBLEMS.find((x) => x.name === p.problem);
    const ours = o ? [o.f(p.config), ...o.constraints(o.metrics(p.config))] : mixedTwoObjective.objectives(p.config);
    ours.forEach((v, j) => {
      if (Math.abs(v - values![i]![j]!) > 1e-9 * Math.max(1, Math.abs(v)))
        throw new Error(
          `${p.problem} differs between TS (${v}) and Python (${values![i]![j]}) at ${JSON.stringify(p.config)}`,
        );
    });
  });
}

/**
 * The bench's blocking constraint: an infeasible candidate is never kept (core's constraint keep policy does this in
 * the product).
 */
function blocking(o: ConstrainedObjective, inner: KeepPolicy): KeepPolicy {
  return {
    name: `blocking(${inner.name})`,
    decide: (input) => {
      const metrics = input.candidateData?.metrics;
      const violation = metrics ? totalViolation(o.constraints(metrics)) : Infinity;
      return violation > 0 ? { keep: false, reason: `infeasible by ${violation}` } : inner.decide(input);
    },
  };
}

interface ConstrainedRun {
  readonly budget: number;
  readonly regret: number;
  readonly infeasibleIncumbent: boolean;
  readonly keptInfeasible: number;
  readonly infeasibleEvaluated: number;
}

/** One run of ours to 100 harness calls; the figures at each budget. */
async function oursConstrained(
  o: ConstrainedObjective,
  seed: number,
  sigma: number,
  optimum: number,
): Promise<ConstrainedRun[]> {
  const artifact = createMemoryArtifact<Config>(o.start);
  const noise = createSeededRandom(seed * 7919 + 17);
  const evaluated = new Map<number, Config>();
  const feasible = (c: Config) => totalViolation(o.constraints(o.metrics(c))) === 0;
  const rows: IterationRecord[] = [];
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer: createTpeProposer({
      config: createMemoryConfigAdapter(artifact),
      space: o.space,
      seed,
      // The product's wiring: the violations withConstraints recorded in each row (`recordedViolations`).
      ...(MODEL_CONSTRAINTS ? { constraints: recordedViolations } : {}),
      ...TPE_OPTIONS,
    }),
    harness: createFunctionHarness(o.name, (context) => {
      const c = artifact.get();
      evaluated.set(context.iteration, { ...c });
      return { value: o.f(c) + (sigma > 0 ? sigma * gaussian(noise) : 0), data: { metrics: o.metrics(c) } };
    }),
    scorer: createValueScorer('minimize'),
    keep: {
      policy: LOCAL_KEEP ? blocking(o, strictImprovement()) : withConstraints(strictImprovement(), o.expressions),
    },
    stop: maxIterations(Math.max(...BUDGETS) - 1),
  });
  for (const type of ['baseline', 'kept', 'reverted', 'crash'] as const)
    loop.on(type as never, (e: { record: IterationRecord }) => rows.push(e.record));
  await loop.run();
  return BUDGETS.map((budget) => {
    const upTo = rows.filter((r) => r.iteration < budget);
    const incumbent = evaluated.get(upTo.findLast((r) => r.status === 'kept' || r.status === 'baseline')!.iteration)!;
    const kept = upTo
      .filter((r) => r.status === 'kept' || r.status === 'baseline')
      .map((r) => evaluated.get(r.iteration)!);
    return {
      budget,
      regret: feasible(incumbent) ? o.f(incumbent) - optimum : Infinity,
      infeasibleIncumbent: !feasible(incumbent),
      keptInfeasible: kept.filter((c) => !feasible(c)).length,
      infeasibleEvaluated: upTo.filter((r) => !feasible(evaluated.get(r.iteration)!)).length,
    };
  });
}

/** One two-objective run of ours: the hypervolume of the clean values of its front after 100 calls. */
async function oursPareto(seed: number, sigma: number): Promise<number> {
  const p = mixedTwoObjective;
  const artifact = createMemoryArtifact<Config>(p.start);
  const noise = createSeededRandom(seed * 7919 + 17);
  const evaluated = new Map<number, Config>();
  const rows: IterationRecord[] = [];
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer: createTpeProposer({
      config: createMemoryConfigAdapter(artifact),
      space: p.space,
      seed,
      objectives: OBJECTIVES,
    }),
    harness: createFunctionHarness(p.name, (context) => {
      const c = artifact.get();
      evaluated.set(context.iteration, { ...c });
      const [loss, train_s] = p.objectives(c);
      const noisy = loss + (sigma > 0 ? sigma * gaussian(noise) : 0);
      return { value: noisy, data: { metrics: { loss: noisy, train_s } } };
    }),
    scorer: createValueScorer('minimize'),
    keep: { policy: paretoKeep({ objectives: OBJECTIVES }) },
    stop: maxIterations(99),
  });
  for (const type of ['baseline', 'kept', 'reverted', 'crash'] as const)
    loop.on(type as never, (e: { record: IterationRecord }) => rows.push(e.record));
  await loop.run();
  return hypervolume(
    paretoFront(rows, OBJECTIVES).map((q) => p.objectives(evaluated.get(q.iteration)!)),
    p.reference,
  );
}

type OptunaRow = Record<string, unknown> & {
  problem: string;
  sampler: string;
  seed: number;
  noise: number;
  budget: number;
};

async function optuna(optimum: Record<string, number>): Promise<{ version: string; rows: OptunaRow[] }> {
  const key = (j: { problem: string; sampler: string; seed: number; noise: number }) =>
    `${j.problem}|${j.sampler}|${j.seed}|${j.noise}`;
  const cache: { version: string; runs: Record<string, OptunaRow[]> } =
    CACHE && existsSync(CACHE) ? JSON.parse(readFileSync(CACHE, 'utf8')) : { version: '', runs: {} };
  const jobs = [
    ...(ONLY.includes('constrained')
      ? PROBLEMS.flatMap((o) =>
          NOISES.flatMap((noise) => SEEDS.map((seed) => ({ problem: o.name, sampler: 'tpe', seed, noise }))),
        )
      : []),
    ...(ONLY.includes('pareto')
      ? ['motpe', 'nsga2'].flatMap((sampler) =>
          NOISES.flatMap((noise) => SEEDS.map((seed) => ({ problem: mixedTwoObjective.name, sampler, seed, noise }))),
        )
      : []),
  ];
  const missing = jobs.filter((j) => !cache.runs[key(j)]);
  if (missing.length > 0) {
    const spaces = Object.fromEntries([...PROBLEMS, mixedTwoObjective].map((o) => [o.name, o.space]));
    const halves = [missing.filter((_, i) => i % 2 === 0), missing.filter((_, i) => i % 2 === 1)].filter(
      (h) => h.length > 0,
    );
    const parts = await Promise.all(
      halves.map((h) => python({ mode: 'run', jobs: h, optimum, budget: 100, checkpoints: [30, 100], spaces })),
    );
    cache.version = parts[0]!.optuna!;
    for (const r of parts.flatMap((p) => p.results! as OptunaRow[])) (cache.runs[key(r)] ??= []).push(r);
    if (CACHE) writeFileSync(CACHE, JSON.stringify(cache));
  }
  return { version: cache.version, rows: jobs.flatMap((j) => cache.runs[key(j)]!) };
}

const withCi = (xs: number[]) => {
  const [lo, hi] = bootstrapMedian(xs);
  return `${fmt(median(xs))} [${fmt(lo)}, ${fmt(hi)}]`;
};
const share = (xs: boolean[]) => `${xs.filter(Boolean).length}/${xs.length}`;
const mean = (xs: number[]) => (xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1);

const started = performance.now();
await checkDefinitions();
const optimum = Object.fromEntries(PROBLEMS.map((o) => [o.name, constrainedOptimum(o)]));
const { version, rows: optunaRows } = await optuna(optimum);
console.log(
  `\n@loop/core: constraints and two objectives vs Optuna ${version} (seeds 1-${SEEDS.length}; constrained optimum ` +
    `${Object.entries(optimum)
      .map(([k, v]) => `${k} ${v.toPrecision(6)}`)
      .join(', ')})`,
);
if (ONLY.includes('constrained')) {
  console.log(
    '| problem | noise σ | budget | ours: feasible regret median [95% CI] | ' +
      'Optuna TPE: feasible regret median [95% CI] | ours / Optuna [95% CI] | ' +
      'infeasible incumbent ours / Optuna | runs of ours that kept an ' +
      'infeasible state | infeasible evaluations per run, ours / Optuna |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const o of PROBLEMS) {
    for (const noise of NOISES) {
      const ours: ConstrainedRun[] = [];
      for (const seed of SEEDS) ours.push(...(await oursConstrained(o, seed, noise, optimum[o.name]!)));
      for (const budget of BUDGETS) {
        const a = ours.filter((r) => r.budget === budget);
        const b = optunaRows.filter((r) => r.problem === o.name && r.noise === noise && r.budget === budget);
        const ra = a.map((r) => r.regret);
        const rb = b.map((r) => (r.regret === null ? Infinity : (r.regret as number)));
        const [lo, hi] = bootstrapRatio(ra, rb);
        console.log(
          `| ${o.name} | ${noise} | ${budget} | ${withCi(ra)} | ${withCi(rb)} ` +
            `| ${(median(ra) / median(rb)).toFixed(2)}x ` +
            `[${lo.toFixed(2)}, ${hi.toFixed(2)}] ` +
            `| ${share(a.map((r) => r.infeasibleIncumbent))} ` +
            `/ ${share(b.map((r) => r.infeasibleIncumbent as boolean))} ` +
            `| ${a.filter((r) => r.keptInfeasible > 0).length}/${a.length} ` +
            `| ${mean(a.map((r) => r.infeasibleEvaluated))} ` +
            `/ ${mean(b.map((r) => r.infeasibleEvaluated as number))} |`,
        );
      }
    }
  }
}
if (ONLY.includes('pareto')) {
  console.log(
    `\n| problem | noise σ | budget | ours: hypervolume median [95% CI] | ` +
      `Optuna MOTPE | Optuna NSGA-II | ours / MOTPE [95% CI] | ours / NSGA-II ` +
      `[95% CI] |`,
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const ref = mixedTwoObjective.reference;
  for (const noise of NOISES) {
    const ours: number[] = [];
    for (const seed of SEEDS) ours.push(await oursPareto(seed, noise));
    const hv = (sampler: string) =>
      optunaRows
        .filter((r) => r.problem === mixedTwoObjective.name && r.sampler === sampler && r.noise === noise)
        .map((r) => hypervolume(r.front as number[][], ref));
    const motpe = hv('motpe');
    const nsga = hv('nsga2');
    const ratio = (b: number[]) => {
      const [lo, hi] = bootstrapRatio(ours, b);
      return `${(median(ours) / median(b)).toFixed(3)}x [${lo.toFixed(3)}, ${hi.toFixed(3)}]`;
    };
    console.log(
      `| ${mixedTwoObjective.name} | ${noise} | 100 | ${withCi(ours)} ` +
        `| ${withCi(motpe)} | ${withCi(nsga)} | ${ratio(motpe)} ` +
        `| ${ratio(nsga)} |`,
    );
  }
}
console.log(
  `(${((performance.now() - started) / 1000).toFixed(0)} s, load ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')})`,
);
