/**
 * The held-back objective: a second mixed space, defined apart from the ones the proposer was
 * tuned on and used only for the final check (issue 17: "our own copy of one mixed objective is
 * kept back to check the result independently"). Same definition in heldback.py.
 */
import type { Objective } from './objectives.js';

const SCHED: Record<string, number> = { cosine: 0, linear: 0.02, step: 0.05, constant: 0.12 };
const NORM: Record<string, number> = { layer: 0, batch: 0.01, none: 0.2 };

/**
 * 7 parameters: float dropout, log-float weight decay, int warmup, an ordered depth list, log-int
 * width, two categoricals. The best dropout depends on the norm, the best weight decay on the
 * scheduler, the best width on the depth. Optimum 0 at cosine, layer, dropout 0.25, weight_decay
 * 1e-4, warmup 200, depth 8, width 256.
 */
export const mixedHeldBack: Objective = {
  name: 'mixed-heldback',
  space: {
    dropout: { min: 0, max: 0.5 },
    weight_decay: { min: 1e-6, max: 1e-2, scale: 'log' },
    warmup: { min: 0, max: 1000, integer: true },
    depth: { values: [2, 4, 8, 16] },
    width: { min: 32, max: 1024, scale: 'log', integer: true },
    scheduler: { values: ['constant', 'cosine', 'linear', 'step'] },
    norm: { values: ['batch', 'layer', 'none'] },
  },
  start: { dropout: 0.1, weight_decay: 1e-3, warmup: 0, depth: 4, width: 128, scheduler: 'constant', norm: 'batch' },
  optimum: 0,
  f: (c) => {
    const norm = c.norm as string;
    const sched = c.scheduler as string;
    const depth = c.depth as number;
    const dStar = norm === 'batch' ? 0.1 : 0.25;
    const wdStar = sched === 'cosine' ? -4 : -3;
    const wStar = depth <= 4 ? 9 : 8;
    return (
      SCHED[sched]! +
      NORM[norm]! +
      2 * ((c.dropout as number) - dStar) ** 2 +
      0.1 * (Math.log10(c.weight_decay as number) - wdStar) ** 2 +
      0.3 * (((c.warmup as number) - 200) / 1000) ** 2 +
      0.05 * (Math.log2(depth) - 3) ** 2 +
      0.04 * (Math.log2(c.width as number) - wStar) ** 2
    );
  },
};
