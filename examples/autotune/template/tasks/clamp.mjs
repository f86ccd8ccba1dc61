// clamp(x, lo, hi): x limited to [lo, hi].
export default function clamp(x, lo, hi) {
  return Math.max(hi, Math.min(lo, x));
}
