/**
 * The proposer benchmark's objectives (minimize), the same definitions as objectives.py (the bench
 * checks both languages agree on random points before it runs). Each has a search space in
 * `createTpeProposer`'s shape, a start config (what our engine evaluates as its baseline) and a
 * known optimum.
 */
import type { TpeParameter } from '../../src/proposers.js';

export type Config = Record<string, unknown>;

export interface Objective {
  readonly name: string;
  readonly space: Record<string, TpeParameter>;
  readonly start: Config;
  readonly optimum: number;
  readonly f: (c: Config) => number;
}

const num = (c: Config, k: string) => c[k] as number;

export const branin: Objective = {
  name: 'branin',
  space: { x1: { min: -5, max: 10 }, x2: { min: 0, max: 15 } },
  start: { x1: 2.5, x2: 7.5 },
  optimum: 0.397887357729739,
  f: (c) => {
    const x1 = num(c, 'x1');
    const x2 = num(c, 'x2');
    const b = 5.1 / (4 * Math.PI ** 2);
    const cc = 5 / Math.PI;
    const t = 1 / (8 * Math.PI);
    return (x2 - b * x1 ** 2 + cc * x1 - 6) ** 2 + 10 * (1 - t) * Math.cos(x1) + 10;
  },
};

const H_ALPHA = [1.0, 1.2, 3.0, 3.2];
const H_A = [
  [10, 3, 17, 3.5, 1.7, 8],
  [0.05, 10, 17, 0.1, 8, 14],
  [3, 3.5, 1.7, 10, 17, 8],
  [17, 8, 0.05, 10, 0.1, 14],
];
const H_P = [
  [0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
  [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
  [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.665],
  [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381],
];

export const hartmann6: Objective = {
  name: 'hartmann6',
  space: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`x${i + 1}`, { min: 0, max: 1 }])),
  start: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`x${i + 1}`, 0.5])),
  optimum: -3.32236801141551,
  f: (c) => {
    let s = 0;
    for (let i = 0; i < 4; i++) {
      let inner = 0;
      for (let j = 0; j < 6; j++) inner += H_A[i]![j]! * (num(c, `x${j + 1}`) - H_P[i]![j]!) ** 2;
      s += H_ALPHA[i]! * Math.exp(-inner);
    }
    return -s;
  },
};

const OPT_OFFSET: Record<string, number> = { adam: 0, rmsprop: 0.08, sgd: 0.15 };
const OPT_LR: Record<string, number> = { adam: 2e-3, rmsprop: 7e-4, sgd: 3e-2 };
const ACT_OFFSET: Record<string, number> = { gelu: 0, relu: 0.03, tanh: 0.1 };

/**
 * Like the ML demo's space: log-int width, int depth, log-float lr, a batch-size list and two
 * categoricals, with interactions (each optimizer has its own best lr, scaled by sqrt(batch/64); the
 * best width and depth depend on the activation). Optimum 0 at adam, gelu, lr 0.002, batch 64,
 * n_hidden 256, n_layers 3.
 */
export const mixedDemo: Objective = {
  name: 'mixed-demo',
  space: {
    n_hidden: { min: 16, max: 512, scale: 'log', integer: true },
    n_layers: { min: 1, max: 6, integer: true },
    lr: { min: 1e-4, max: 1e-1, scale: 'log' },
    batch_size: { values: [16, 32, 64, 128, 256] },
    optimizer: { values: ['sgd', 'adam', 'rmsprop'] },
    activation: { values: ['relu', 'tanh', 'gelu'] },
  },
  start: { n_hidden: 64, n_layers: 2, lr: 0.01, batch_size: 32, optimizer: 'sgd', activation: 'relu' },
  optimum: 0,
  f: (c) => {
    const opt = c.optimizer as string;
    const act = c.activation as string;
    const batch = num(c, 'batch_size');
    const lrStar = OPT_LR[opt]! * Math.sqrt(batch / 64);
    const hStar = act === 'gelu' ? 8 : 7;
    const lStar = act === 'tanh' ? 2 : 3;
    return (
      OPT_OFFSET[opt]! +
      ACT_OFFSET[act]! +
      0.3 * (Math.log(num(c, 'lr')) - Math.log(lrStar)) ** 2 +
      0.15 * (Math.log2(num(c, 'n_hidden')) - hStar) ** 2 +
      0.05 * (num(c, 'n_layers') - lStar) ** 2 +
      0.02 * (Math.log2(batch) - 6) ** 2
    );
  },
};

/** The objectives the benchmark reports (the held-back one is in heldback.ts). */
export const OBJECTIVES: readonly Objective[] = [branin, hartmann6, mixedDemo];
