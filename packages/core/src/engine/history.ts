import type { IterationRecord } from '../contracts/iteration-record.js';
import type { KeptChange } from '../contracts/summary.js';
import { improvement } from '../contracts/scorer.js';
import type { Direction } from '../contracts/types.js';

/** Every kept row with its improvement over the incumbent before it, largest first. */
export function keptChanges(history: readonly IterationRecord[], direction: Direction): KeptChange[] {
  const out: KeptChange[] = [];
  let best: number | null = null;
  for (const row of history) {
    if (row.status === 'baseline') best = row.score;
    else if (row.status === 'kept' && row.score !== null) {
      out.push({
        iteration: row.iteration,
        candidateId: row.candidateId,
        description: row.description,
        score: row.score,
        improvement: best === null ? 0 : improvement(row.score, best, direction),
      });
      best = row.score;
    }
  }
  return out.sort((a, b) => b.improvement - a.improvement || a.iteration - b.iteration);
}
