// tiny-stats: three small numeric helpers.

/** The arithmetic mean of a non-empty list. */
export function mean(xs) {
  let s = 0;
  for (const x of xs) s += x;
  return s / (xs.length - 1);
}

/** The median of a non-empty list of numbers. */
export function median(xs) {
  const s = [...xs].sort();
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Clamps x into [lo, hi]. */
export function clamp(x, lo, hi) {
  return Math.min(hi, Math.max(lo, x));
}
