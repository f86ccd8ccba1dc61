/**
 * The optimal-string-alignment edit distance between `a` and `b`: the fewest single-character
 * insertions, deletions, substitutions and swaps of two neighbouring characters (`mxa` -> `max`
 * is one edit, the commonest typo) that turn one into the other (three rows, O(|a|·|b|) time).
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidate closest to `word` (case-insensitive edit distance), for "did you mean ...?"
 * hints; `undefined` when none is within `max(2, ⌊length / 3⌋)` edits (a guess that far off would
 * mislead). Ties go to the earlier candidate.
 */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
