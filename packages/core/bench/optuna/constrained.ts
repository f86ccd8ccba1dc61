/**
 * The constrained and two-objective benchmark problems (issue 28), the same definitions as
 * constrained.py (the bench checks both languages agree before it runs). Constraints are
 * Optuna-style: each value `<= 0` is feasible. Constraint metrics are noiseless (a parameter count,
 * a disk): only the objective carries the benchmark's noise.
 */
import { branin, mixedDemo, type Config, type Objective } from './objectives.js';

export interface ConstrainedObjective extends Objective {
  /** Named metrics of a config (what the harness reports in `data.metrics`). */
  readonly metrics: (c: Config) => Record<string, number>;
  /** Constraint values from those metrics, `<= 0` feasible. */
  readonly constraints: (m: Readonly<Record<string, number>>) => number[];
  /** The same constraints as `withConstraints` expressions (blocking). */
  readonly expressions: readonly string[];
}

const num = (c: Config, k: string) => c[k] as number;

/**
 * Branin on a disk that cuts away all three global minima: `(x1 - 2.5)² + (x2 - 7.5)² <= 20`
 * (the constrained Branin of Gardner et al. 2014 has radius² 50, which keeps the minimum at (π,
 * 2.275); 20 leaves every minimum outside, so the constrained optimum lies on the boundary).
 */
export const braninConstrained: ConstrainedObjective = {
  ...branin,
  name: 'branin-disk',
  optimum: 0, // computed by `constrainedOptimum` at start-up
  metrics: (c) => ({ disk: (num(c, 'x1') - 2.5) ** 2 + (num(c, 'x2') - 7.5) ** 2 }),
  constraints: (m) => [m.disk! - 20],
  expressions: ['disk <= 20'],
};

const FLOPS_GELU = 1.5;

/** Training seconds of the mixed demo's model: layers x width / 64, gelu 1.5x slower, larger batches faster. */
export function trainSeconds(c: Config): number {
  return (
    ((num(c, 'n_layers') * num(c, 'n_hidden')) / 64) *
    (c.activation === 'gelu' ? FLOPS_GELU : 1) *
    Math.sqrt(64 / num(c, 'batch_size'))
  );
}

/**
 * The ML demo's mixed space (two categoricals, log-int, int, log-float, an ordered list) with a
 * parameter budget and a time budget: `params_k = n_hidden² n_layers / 1000 <= 100` and
 * `train_s <= 12`. The unconstrained optimum (gelu, 256 wide, 3 layers: 197k parameters, 18 s) is
 * infeasible on both.
 */
export const mixedConstrained: ConstrainedObjective = {
  ...mixedDemo,
  name: 'mixed-budget',
  optimum: 0, // computed by `constrainedOptimum` at start-up
  metrics: (c) => ({ params_k: (num(c, 'n_hidden') ** 2 * num(c, 'n_layers')) / 1000, train_s: trainSeconds(c) }),
  constraints: (m) => [m.params_k! - 100, m.train_s! - 12],
  expressions: ['params_k <= 100', 'train_s <= 12'],
};

/** The two-objective problem: the mixed demo's loss against its training seconds (both minimised), no constraints. */
export const mixedTwoObjective = {
  name: 'mixed-loss-time',
  space: mixedDemo.space,
  start: mixedDemo.start,
  objectives: (c: Config) => [mixedDemo.f(c), trainSeconds(c)] as [number, number],
  /** The hypervolume's reference point (loss, seconds): worse than any point worth keeping. */
  reference: [1, 40] as [number, number],
};

/**
 * The best feasible value: for the disk, on its boundary (see below); for the
 * mixed space, every discrete combination with lr at its best (the lr term is 0 when lr* is inside
 * the range, which it is for every optimizer and batch).
 */
export function constrainedOptimum(o: ConstrainedObjective): number {
  let best = Infinity;
  const consider = (c: Config) => {
    if (o.constraints(o.metrics(c)).every((v) => v <= 0)) best = Math.min(best, o.f(c));
  };
  if (o.name === 'branin-disk') {
    // Branin's only local minima are its three global ones, all outside the disk: the optimum is on
    // the circle. A fine scan of the angle, then a golden-section refinement around the best.
    const at = (a: number) => o.f({ x1: 2.5 + Math.sqrt(20) * Math.cos(a), x2: 7.5 + Math.sqrt(20) * Math.sin(a) });
    const n = 100_000;
    let k = 0;
    for (let j = 1; j < n; j++) if (at((2 * Math.PI * j) / n) < at((2 * Math.PI * k) / n)) k = j;
    let lo = (2 * Math.PI * (k - 1)) / n;
    let hi = (2 * Math.PI * (k + 1)) / n;
    for (let i = 0; i < 100; i++) {
      const m1 = lo + (hi - lo) * 0.382;
      const m2 = lo + (hi - lo) * 0.618;
      if (at(m1) < at(m2)) hi = m2;
      else lo = m1;
    }
    return at((lo + hi) / 2);
  }
  const OPT_LR: Record<string, number> = { adam: 2e-3, rmsprop: 7e-4, sgd: 3e-2 };
  for (let h = 16; h <= 512; h++) {
    for (let l = 1; l <= 6; l++) {
      for (const batch_size of [16, 32, 64, 128, 256]) {
        for (const optimizer of ['sgd', 'adam', 'rmsprop']) {
          for (const activation of ['relu', 'tanh', 'gelu'])
            consider({
              n_hidden: h,
              n_layers: l,
              batch_size,
              optimizer,
              activation,
              lr: OPT_LR[optimizer]! * Math.sqrt(batch_size / 64),
            });
        }
      }
    }
  }
  return best;
}
