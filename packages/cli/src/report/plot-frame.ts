import type { Direction } from '@loop/core';
import type { Axis, LinearScale } from 'vega';

/**
 * The frame both progress plots share (the one-run plot and several runs on one plot): the Vega
 * header, the x scale over the experiments, the y scale over the scores with 8% headroom (not
 * across zero), `yDomain` (that scale's domain before Vega rounds it outwards to nice values), and
 * the axes titled with the metric and its direction.
 *
 * @param scores - every drawn score
 * @param maxIteration - the largest iteration on the x axis (at least 1 is drawn)
 */
export function plotFrame(
  scores: readonly number[],
  maxIteration: number,
  metric: string,
  direction: Direction,
): {
  arrow: string;
  header: {
    $schema: string;
    padding: { left: number; right: number; top: number; bottom: number };
    background: string;
  };
  x: LinearScale;
  y: LinearScale;
  yDomain: readonly [number, number];
  axes: Axis[];
} {
  const lo = scores.length > 0 ? Math.min(...scores) : 0;
  const hi = scores.length > 0 ? Math.max(...scores) : 1;
  const pad = hi > lo ? (hi - lo) * 0.08 : hi !== 0 ? Math.abs(hi) * 0.1 : 1;
  // Headroom never crosses zero: positive scores start the axis at 0 at the lowest (not -0.5), and
  // negative ones end it at 0 at the highest.
  const domain: [number, number] = [
    lo >= 0 ? Math.max(0, lo - pad) : lo - pad,
    hi <= 0 ? Math.min(0, hi + pad) : hi + pad,
  ];
  const arrow = direction === 'minimize' ? 'lower is better' : 'higher is better';
  return {
    arrow,
    header: {
      $schema: 'https://vega.github.io/schema/vega/v6.json',
      padding: { left: 10, right: 30, top: 10, bottom: 10 },
      background: 'white',
    },
    x: {
      name: 'x',
      type: 'linear',
      domain: [0, Math.max(1, maxIteration)],
      range: 'width',
      nice: false,
      zero: false,
      padding: 8,
    },
    y: { name: 'y', type: 'linear', domain, range: 'height', nice: true, zero: false },
    yDomain: domain,
    axes: [
      { orient: 'bottom', scale: 'x', title: 'experiment', tickMinStep: 1, format: 'd', grid: false },
      { orient: 'left', scale: 'y', title: `${metric} (${arrow})`, grid: true, gridOpacity: 0.25 },
    ],
  };
}
