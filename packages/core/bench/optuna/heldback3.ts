/**
 * The third held-back objective, written for issue 17's noisy-mixed-space work before any tuning
 * of that work started: nothing about the proposer was chosen on it (it was run only for the final
 * table). An SVM-like mixed space with three categoricals; same definition in heldback3.py.
 */
import type { Objective } from './objectives.js';

const KERNEL: Record<string, number> = { rbf: 0, poly: 0.01, linear: 0.04, sigmoid: 0.08 };
const SCALER: Record<string, number> = { standard: 0, minmax: 0.008, none: 0.05 };
const SHRINKING: Record<string, number> = { on: 0, off: 0.004 };
const C_STAR: Record<string, number> = { rbf: 1, poly: 0, linear: -1, sigmoid: 0 };
const GAMMA_STAR: Record<string, number> = { standard: -2, minmax: -1, none: -3 };

/**
 * 8 parameters: log-float C and gamma, an ordered tol list, log-int epochs, float margin, three
 * categoricals (kernel 4 values, scaler 3, shrinking 2; category gaps 0.004-0.08, the size of the
 * benchmark's noise). The best C depends on the kernel, the best gamma on the scaler. Optimum 0 at
 * rbf, standard, shrinking on, C 10, gamma 0.01, tol 1e-3, epochs 40, margin 0.3.
 */
export const mixedHeldBack3: Objective = {
  name: 'mixed-heldback3',
  space: {
    C: { min: 1e-3, max: 1e3, scale: 'log' },
    gamma: { min: 1e-4, max: 10, scale: 'log' },
    tol: { values: [1e-5, 1e-4, 1e-3, 1e-2, 1e-1] },
    epochs: { min: 5, max: 200, scale: 'log', integer: true },
    margin: { min: 0, max: 1 },
    kernel: { values: ['linear', 'poly', 'sigmoid', 'rbf'] },
    scaler: { values: ['none', 'minmax', 'standard'] },
    shrinking: { values: ['off', 'on'] },
  },
  start: { C: 1, gamma: 1, tol: 1e-2, epochs: 10, margin: 0.8, kernel: 'linear', scaler: 'none', shrinking: 'off' },
  optimum: 0,
  f: (c) => {
    const kernel = c.kernel as string;
    const scaler = c.scaler as string;
    return (
      KERNEL[kernel]! +
      SCALER[scaler]! +
      SHRINKING[c.shrinking as string]! +
      0.03 * (Math.log10(c.C as number) - C_STAR[kernel]!) ** 2 +
      0.02 * (Math.log10(c.gamma as number) - GAMMA_STAR[scaler]!) ** 2 +
      0.01 * (Math.log10(c.tol as number) + 3) ** 2 +
      0.05 * (Math.log2(c.epochs as number) - Math.log2(40)) ** 2 +
      0.6 * ((c.margin as number) - 0.3) ** 2
    );
  },
};
