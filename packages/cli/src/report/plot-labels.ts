import { scale as vegaScale } from 'vega';
import type { Direction } from '@loop/core';

/** Options of {@link selectLabels}: the plot's geometry and the label's look (the `keptLabels` mark of `plotSpec`). */
export interface LabelLayout {
  /** Which way scores improve (the size of an improvement decides which labels win). */
  readonly direction: Direction;
  /** The drawing area's width in px. */
  readonly width: number;
  /** The drawing area's height in px. */
  readonly height: number;
  /** The x scale's domain, `[0, last iteration]`. */
  readonly xDomain: readonly [number, number];
  /** The x scale's padding in px at each end (Vega's `padding` of a linear scale). @default 8 */
  readonly xPadding?: number;
  /** The y scale's domain before Vega's `nice` (the scale is niced as Vega does). */
  readonly yDomain: readonly [number, number];
  /** Longest label in characters (longer ones end in `…`). */
  readonly labelChars: number;
  /** The most labels drawn. @default 12 */
  readonly maxLabels?: number;
  /** Width of a character in px, on the safe side of a 10 px sans-serif font. @default 6.5 */
  readonly charPx?: number;
  /** Height of a label line in px, a gap included. @default 13 */
  readonly lineHeightPx?: number;
  /** The labels' angle in degrees, counterclockwise (the mark draws them at -35°, rising to the right). @default 35 */
  readonly angleDeg?: number;
}

/** A labelled point: the baseline and kept experiments (the other kinds are never labelled). */
export interface LabelCandidate {
  readonly iteration: number;
  readonly score: number;
  readonly kind: 'baseline' | 'keep';
  /** The label's text (`baseline` for the baseline). */
  readonly text: string;
}

/**
 * The label's box in the text's own frame (u along the text, v across it): axis-aligned there, since every label has
 * the same angle.
 */
interface Box {
  readonly u0: number;
  readonly u1: number;
  readonly v0: number;
  readonly v1: number;
}

const overlaps = (a: Box, b: Box) => a.u0 < b.u1 && b.u0 < a.u1 && a.v0 < b.v1 && b.v0 < a.v1;

/**
 * Which kept points get a text label on the progress plot (issue 32 item 11): only as many as stay
 * readable. Every label is drawn at the same angle from its dot, so two labels overlap exactly when
 * their boxes overlap in the text's own frame (u along the text, v across it); the labels are
 * placed greedily by importance and one that would overlap a placed one, or go past `maxLabels`,
 * is left to the dot's tooltip. Importance: the baseline, the last keep (the best), then the keeps
 * by the size of their improvement over the keep before them, largest first (ties: earlier first).
 *
 * Pure and deterministic: pixel positions come from the same scales Vega draws with (x linear with
 * `xPadding`, y linear and niced, range `[height, 0]`).
 *
 * @returns the iterations to label, ascending.
 */
export function selectLabels(points: readonly LabelCandidate[], layout: LabelLayout): number[] {
  const maxLabels = layout.maxLabels ?? 12;
  if (maxLabels <= 0 || points.length === 0) return [];
  const charPx = layout.charPx ?? 6.5;
  const lineHeight = layout.lineHeightPx ?? 13;
  const angle = ((layout.angleDeg ?? 35) * Math.PI) / 180;
  const pad = layout.xPadding ?? 8;
  const [x0, x1] = layout.xDomain;
  const xOf = (i: number) => pad + ((i - x0) / (x1 - x0 || 1)) * Math.max(1, layout.width - 2 * pad);
  const y = vegaScale('linear')()
    .domain([...layout.yDomain])
    .nice()
    .range([layout.height, 0]) as (v: number) => number;
  // The text's frame in screen px (y down): u along the text, rising to the right; v across it, towards the glyphs'
  // tops.
  const [du, dv] = [Math.cos(angle), -Math.sin(angle)];
  const [nu, nv] = [-Math.sin(angle), -Math.cos(angle)];
  const boxOf = (p: LabelCandidate): Box => {
    // The mark's anchor: 4 px right of the dot, 6 px above it; left-aligned, bottom baseline.
    const ax = xOf(p.iteration) + 4;
    const ay = y(p.score) - 6;
    const u = ax * du + ay * dv;
    const v = ax * nu + ay * nv;
    const length = Math.min(p.text.length, layout.labelChars) * charPx;
    return { u0: u, u1: u + length, v0: v, v1: v + lineHeight };
  };
  const better = (a: number, b: number) => (layout.direction === 'minimize' ? b - a : a - b);
  const keeps = points.filter((p) => p.kind === 'keep');
  const last = keeps.at(-1);
  const gains = new Map<number, number>();
  let previous = points.find((p) => p.kind === 'baseline')?.score;
  for (const p of keeps) {
    gains.set(p.iteration, previous === undefined ? 0 : better(p.score, previous));
    previous = p.score;
  }
  const rank = (p: LabelCandidate) => (p.kind === 'baseline' ? 0 : p === last ? 1 : 2);
  const order = [...points].sort(
    (a, b) =>
      rank(a) - rank(b) || (gains.get(b.iteration) ?? 0) - (gains.get(a.iteration) ?? 0) || a.iteration - b.iteration,
  );
  const placed: Box[] = [];
  const chosen: number[] = [];
  for (const p of order) {
    if (chosen.length >= maxLabels) break;
    const box = boxOf(p);
    if (placed.some((q) => overlaps(q, box))) continue;
    placed.push(box);
    chosen.push(p.iteration);
  }
  return chosen.sort((a, b) => a - b);
}
