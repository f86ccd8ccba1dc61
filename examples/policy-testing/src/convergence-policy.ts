import type { StopPolicy } from '@loop/core';
import { improvement } from '@loop/core/scoring';

/**
 * A user-written stop policy: stop when the best score improved by less than `minGain` over the
 * last `window` iterations (convergence). Pure over the loop state, so it unit-tests in memory.
 */
export function converged(window: number, minGain: number): StopPolicy {
  return {
    name: `converged(${window}, ${minGain})`,
    check: (s) => {
      if (s.iteration < window) return undefined;
      const cutoff = s.iteration - window;
      let bestThen = s.baseline;
      for (const row of s.history) {
        if (row.iteration > cutoff) break;
        if ((row.status === 'kept' || row.status === 'baseline') && row.score !== null) bestThen = row.score;
      }
      const gain = improvement(s.best, bestThen, s.direction);
      return gain < minGain
        ? { reason: 'converged', message: `gained ${gain} < ${minGain} over the last ${window} iterations` }
        : undefined;
    },
  };
}
