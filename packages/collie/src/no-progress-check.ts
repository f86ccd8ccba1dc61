/** The token set of a text: lower-cased runs of letters and digits (Unicode-aware). */
export function tokenSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []);
}

/**
 * Token-set Jaccard similarity |A ∩ B| / |A ∪ B| in [0, 1] (seed 000 G7, `jaccard.js`). Two
 * texts without tokens (for example iteration 1, whose previous text is empty) give 0.
 */
export function jaccard(a: string, b: string): number {
  const A = tokenSet(a);
  const B = tokenSet(b);
  if (A.size === 0 && B.size === 0) return 0;
  let inter = 0;
  for (const t of A) if (B.has(t)) inter += 1;
  return inter / (A.size + B.size - inter);
}

/**
 * Buckets a ratio into 1-5 in equal fifths: [0, 0.2) → 1, [0.2, 0.4) → 2, [0.4, 0.6) → 3,
 * [0.6, 0.8) → 4, [0.8, 1] → 5. The seed's thresholds live in overfit-guards.md, which it does not
 * include; equal fifths are our choice.
 */
export function bucketize(ratio: number): 1 | 2 | 3 | 4 | 5 {
  const r = Math.min(1, Math.max(0, Number.isFinite(ratio) ? ratio : 0));
  return (Math.min(4, Math.floor(r * 5)) + 1) as 1 | 2 | 3 | 4 | 5;
}

/** Counts the trailing run of zero scalar deltas (most recent last). */
export function consecutiveZeroDeltas(deltas: readonly (number | null)[]): number {
  let n = 0;
  for (let i = deltas.length - 1; i >= 0 && deltas[i] === 0; i -= 1) n += 1;
  return n;
}

/** The no-progress verdict of one iteration (seed 000 guard G7). */
export interface NoProgressCheck {
  readonly ratio: number;
  readonly bucket: 1 | 2 | 3 | 4 | 5;
  readonly consecutiveDelta0: number;
  /** True when the loop is deadlocked: bucket ≥ 4 and at least two consecutive zero deltas. */
  readonly deadlock: boolean;
}

/**
 * Checks that the loop still makes progress (seed 000 guard G7, Stage 5.0, checked first): the
 * Jaccard similarity of this iteration's task text and the previous iteration's, bucketised;
 * deadlock (escalate `loop_no_progress`) when bucket ≥ 4 AND consecutiveDelta0 ≥ 2.
 */
export function checkNoProgress(
  currentTasksText: string,
  prevTasksText: string,
  deltas: readonly (number | null)[],
): NoProgressCheck {
  const ratio = jaccard(currentTasksText, prevTasksText);
  const bucket = bucketize(ratio);
  const consecutiveDelta0 = consecutiveZeroDeltas(deltas);
  return { ratio, bucket, consecutiveDelta0, deadlock: bucket >= 4 && consecutiveDelta0 >= 2 };
}
