// What the plot's title and subtitle and the HTML page's summary say: the counts and the scores.
import type { PlotPoint } from './results.js';

/** A score as the plot's subtitle and the HTML page print it: 8 significant digits, no trailing zeros. */
export function formatScore(x: number): string {
  return String(Number(x.toPrecision(8)));
}

/** Counts for the title: experiments (baseline excluded), kept, discarded, crashed, halted. */
export function countPoints(points: readonly PlotPoint[]): {
  experiments: number;
  keep: number;
  discard: number;
  crash: number;
  halted: number;
} {
  const rows = points.filter((p) => p.iteration !== 0 || p.kind !== 'baseline');
  return {
    experiments: rows.filter((p) => p.kind !== 'baseline').length,
    keep: rows.filter((p) => p.kind === 'keep').length,
    discard: rows.filter((p) => p.kind === 'discard').length,
    crash: rows.filter((p) => p.kind === 'crash').length,
    halted: rows.filter((p) => p.kind === 'halted').length,
  };
}

/** The counts as the title and the HTML summary say them; halted rows only when there are any. */
export function countsText(c: ReturnType<typeof countPoints>): string {
  return `${c.keep} kept, ${c.discard} discarded, ${c.crash} crashed${c.halted > 0 ? `, ${c.halted} halted` : ''}`;
}
