import type { Direction } from '@loop/core';
import type { Axis, LinearScale } from 'vega';

/**
 * The frame both progress plots share (the one-run plot and several runs on one plot): the Vega
 * header, the x scale over the experiments, the y scale over the scores with 8% headroom, and the
 * axes titled with the metric and its direction.
 *
 * @param scores - every drawn score
 * @param maxIteration - the largest iteration on the x axis (at least 1 is drawn)
 */
export function plotFrame(scores: readonly number[], maxIteration: number, metric: string, direction: Direction): { arrow: string; header: { $schema: string; padding: { left: number; right: number; top: number; bottom: number }; background: string }; x: LinearScale; y: LinearScale; axes: Axis[] } {
  const lo = scores.length > 0 ? Math.min(...scores) : 0;
  const hi = scores.length > 0 ? Math.max(...scores) : 1;
  const pad = hi > lo ? (hi - lo) * 0.08 : Math.max(Math.abs(hi) * 0.1, 1);
  const arrow = direction === 'minimize' ? 'lower is better' : 'higher is better';
  return {
    arrow,
    header: { $schema: 'https://vega.github.io/schema/vega/v6.json', padding: { left: 10, right: 30, top: 10, bottom: 10 }, background: 'white' },
    x: { name: 'x', type: 'linear', domain: [0, Math.max(1, maxIteration)], range: 'width', nice: false, zero: false, padding: 8 },
    y: { name: 'y', type: 'linear', domain: [lo - pad, hi + pad], range: 'height', nice: true, zero: false },
    axes: [
      { orient: 'bottom', scale: 'x', title: 'experiment', tickMinStep: 1, format: 'd', grid: false },
      { orient: 'left', scale: 'y', title: `${metric} (${arrow})`, grid: true, gridOpacity: 0.25 },
    ],
  };
}
