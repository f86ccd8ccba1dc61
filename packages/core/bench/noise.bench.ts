/**
 * Noise benchmark (pnpm bench): strict improvement vs the noise-aware keep policy on a synthetic
 * objective with known ground truth, through the real engine (createLoop, in-memory artifact and
 * rollback, function harness).
 *
 * The objective is a loss (minimize) whose true value starts at 2.0. Each proposal's true effect is
 * drawn once per seeded run, the same stream for both policies: with probability 0.15 a true gain
 * of 1 to 3 σ, 0.65 a null change (effect 0), 0.2 a harmful change of 1 to 4 σ (uniform sizes). Every
 * evaluation returns the true value plus Gaussian noise of σ = 0.0005 (a few parts in ten thousand,
 * the run-to-run spread of a short training run). Each run has the same evaluation budget (the
 * noise-aware loop's baseline repeats and candidate re-runs count); the loop stops once it is spent.
 *
 * Reported, over all runs: keep precision (kept changes that are true gains), keep recall (true-gain
 * proposals evaluated that were kept), the true improvement of the incumbent after N evaluations
 * (mean over runs, in σ units), evaluations spent per decided proposal, and the gain each loop
 * claims (its recorded baseline minus its recorded best) against the true one.
 *
 * Environment overrides for exploring: NOISE_SIGMA, NOISE_RUNS, NOISE_BUDGET, NOISE_P_GAIN,
 * NOISE_P_NULL, NOISE_HARM_MIN, NOISE_HARM_MAX, NOISE_BASELINE_REPEATS, NOISE_POLICY (JSON options).
 */
import {
  createFunctionHarness,
  createFunctionProposer,
  createLoop,
  createMemoryArtifact,
  createMemoryRollback,
  createValueScorer,
  strictImprovement,
  type KeepPolicy,
  type StopPolicy,
} from '../src/index.js';
import { createNoiseAwareKeepPolicy } from '../src/policies.js';
import { createSeededRandom, type RandomSource } from '../src/stats.js';

const SIGMA = Number(process.env.NOISE_SIGMA ?? 0.0005);
const RUNS = Number(process.env.NOISE_RUNS ?? 200);
const BUDGET = Number(process.env.NOISE_BUDGET ?? 200);
const CHECKPOINTS = [50, 100, 200].filter((n) => n <= BUDGET);
const START = 2.0;
const BASELINE_REPEATS = Number(process.env.NOISE_BASELINE_REPEATS ?? 5);
const TUNE = JSON.parse(process.env.NOISE_POLICY ?? '{}') as Record<string, never>;
const P_GAIN = Number(process.env.NOISE_P_GAIN ?? 0.15);
const P_NULL = Number(process.env.NOISE_P_NULL ?? 0.65);
const HARM_MIN = Number(process.env.NOISE_HARM_MIN ?? 1);
const HARM_MAX = Number(process.env.NOISE_HARM_MAX ?? 4);

function gaussian(random: RandomSource): number {
  const u = 1 - random.next();
  const v = random.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** The true effect of each proposal (positive = lowers the loss), in loss units. */
function proposalStream(seed: number, count: number): number[] {
  const r = createSeededRandom(seed);
  return Array.from({ length: count }, () => {
    const u = r.next();
    const size = r.next();
    if (u < P_GAIN) return (1 + 2 * size) * SIGMA;
    if (u < P_GAIN + P_NULL) return 0;
    return -(HARM_MIN + (HARM_MAX - HARM_MIN) * size) * SIGMA;
  });
}

interface RunResult {
  kept: number;
  keptGains: number;
  gainsEvaluated: number;
  decided: number;
  evaluations: number;
  /** true improvement (loss units) of the incumbent at each checkpoint. */
  atCheckpoint: number[];
  /** The gain the loop's own scores claim (recorded baseline − recorded best), loss units. */
  claimed: number;
}

async function simulate(seed: number, policy: 'strict' | 'noise-aware'): Promise<RunResult> {
  const effects = proposalStream(seed, BUDGET + 1);
  const noise = createSeededRandom(seed * 7919 + 17);
  const artifact = createMemoryArtifact({ truth: START, proposal: -1 });
  let evaluations = 0;
  let incumbentTruth = START;
  const trajectory: { at: number; truth: number }[] = [];
  const keepPolicy: KeepPolicy =
    policy === 'strict'
      ? strictImprovement()
      : createNoiseAwareKeepPolicy({ random: createSeededRandom(seed), ...TUNE });
  const budget: StopPolicy = {
    name: 'evaluation-budget',
    check: () => (evaluations >= BUDGET ? { reason: 'budget', message: 'evaluation budget spent' } : undefined),
  };
  const loop = createLoop({
    artifact,
    rollback: createMemoryRollback(artifact),
    proposer: createFunctionProposer('synthetic', ({ iteration }) => {
      const effect = effects[iteration - 1] ?? 0;
      artifact.set({ truth: artifact.get().truth - effect, proposal: iteration - 1 });
      return { description: `proposal ${iteration - 1}` };
    }),
    harness: createFunctionHarness('noisy-loss', () => {
      evaluations += 1;
      return artifact.get().truth + SIGMA * gaussian(noise);
    }),
    scorer: createValueScorer('minimize'),
    keep: { policy: keepPolicy },
    ...(policy === 'noise-aware' ? { run: { baselineRepeats: BASELINE_REPEATS } } : {}),
    stop: budget,
  });
  const r: RunResult = {
    kept: 0,
    keptGains: 0,
    gainsEvaluated: 0,
    decided: 0,
    evaluations: 0,
    atCheckpoint: [],
    claimed: 0,
  };
  // The description names the proposal; on `kept` the artifact holds the kept state.
  loop.on('kept', (e) => {
    const p = Number(e.record.description.split(' ')[1]);
    r.decided += 1;
    const effect = effects[p] ?? 0;
    if (effect > 0) r.gainsEvaluated += 1;
    r.kept += 1;
    if (effect > 0) r.keptGains += 1;
    incumbentTruth = artifact.get().truth;
    trajectory.push({ at: evaluations, truth: incumbentTruth });
  });
  loop.on('reverted', (e) => {
    const p = Number(e.record.description.split(' ')[1]);
    r.decided += 1;
    if ((effects[p] ?? 0) > 0) r.gainsEvaluated += 1;
  });
  const summary = await loop.run();
  r.claimed = summary.baseline - summary.best;
  r.evaluations = evaluations;
  r.atCheckpoint = CHECKPOINTS.map((n) => START - (trajectory.filter((t) => t.at <= n).at(-1)?.truth ?? START));
  return r;
}

async function measure(policy: 'strict' | 'noise-aware') {
  const runs: RunResult[] = [];
  for (let seed = 1; seed <= RUNS; seed++) runs.push(await simulate(seed, policy));
  const sum = (f: (r: RunResult) => number) => runs.reduce((s, r) => s + f(r), 0);
  return {
    policy,
    precision:
      sum((r) => r.keptGains) /
      Math.max(
        1,
        sum((r) => r.kept),
      ),
    recall:
      sum((r) => r.keptGains) /
      Math.max(
        1,
        sum((r) => r.gainsEvaluated),
      ),
    keptPerRun: sum((r) => r.kept) / RUNS,
    decidedPerRun: sum((r) => r.decided) / RUNS,
    evalsPerDecision:
      sum((r) => r.evaluations) /
      Math.max(
        1,
        sum((r) => r.decided),
      ),
    atCheckpoint: CHECKPOINTS.map((_, i) => sum((r) => r.atCheckpoint[i]!) / RUNS),
    claimed: sum((r) => r.claimed) / RUNS,
  };
}

const started = performance.now();
const rows = [await measure('strict'), await measure('noise-aware')];
const seconds = ((performance.now() - started) / 1000).toFixed(1);

console.log(
  `\n@loop/core: keep decisions under noise (${RUNS} seeded runs, ` +
    `budget ${BUDGET} evaluations each, noise σ = ${SIGMA}; ` +
    `proposals: ${P_GAIN * 100}% true gains of 1-3σ, ${P_NULL * 100}% null, ` +
    `rest harmful of ${HARM_MIN}-${HARM_MAX}σ; noise-aware: defaults, ` +
    `baselineRepeats ${BASELINE_REPEATS}; ${seconds} s)`,
);
console.log(
  `| policy | keep precision | keep recall | kept per run | proposals ` +
    `decided per run | evaluations per proposal ` +
    `| ${CHECKPOINTS.map((n) => `true gain after ${n} evals (σ)`).join(' | ')} ` +
    `| claimed gain at the end (σ) |`,
);
console.log(`| --- | ---: | ---: | ---: | ---: | ---: | ${CHECKPOINTS.map(() => '---:').join(' | ')} | ---: |`);
for (const r of rows) {
  console.log(
    `| ${r.policy} | ${r.precision.toFixed(3)} | ${r.recall.toFixed(3)} ` +
      `| ${r.keptPerRun.toFixed(1)} | ${r.decidedPerRun.toFixed(1)} ` +
      `| ${r.evalsPerDecision.toFixed(2)} ` +
      `| ${r.atCheckpoint.map((x) => (x / SIGMA).toFixed(2)).join(' | ')} ` +
      `| ${(r.claimed / SIGMA).toFixed(2)} |`,
  );
}
const [strict, aware] = rows as [(typeof rows)[0], (typeof rows)[0]];
const met = aware.precision >= 0.9 && strict.precision < 0.5 && aware.recall >= 0.8 * strict.recall;
console.log(
  `\nprecision ratio noise-aware / ` +
    `strict: ${(aware.precision / strict.precision).toFixed(2)}x; recall ` +
    `ratio: ${(aware.recall / strict.recall).toFixed(2)}; done-when (aware ` +
    `precision >= 0.9, strict < 0.5, recall >= 0.8 x ` +
    `strict): ${met ? 'met' : 'NOT met'}`,
);
