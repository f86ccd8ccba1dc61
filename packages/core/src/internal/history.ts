import type { IterationRecord, StatusCounts } from '../iteration-record.js';
import type { KeptChange } from '../summary.js';
import { improvement } from '../scorer.js';
import type { Direction } from '../types.js';

/** Counters derived from the history alone, so a resumed loop has the same state as an uninterrupted one. */
export interface HistoryCounters {
  counts: StatusCounts;
  consecutiveNonImprovements: number;
  consecutiveCrashes: number;
  /** The incumbent: the last baseline or kept row. */
  incumbent: IterationRecord;
}

/** Derives counts, streaks and the incumbent from the rows (baseline first). */
export function deriveCounters(history: readonly IterationRecord[]): HistoryCounters {
  const counts: StatusCounts = { kept: 0, reverted: 0, rejected: 0, crash: 0 };
  let consecutiveNonImprovements = 0;
  let consecutiveCrashes = 0;
  let incumbent = history[0];
  for (const row of history) {
    if (row.status === 'baseline') {
      incumbent = row;
      continue;
    }
    counts[row.status] += 1;
    if (row.status === 'kept') {
      incumbent = row;
      consecutiveNonImprovements = 0;
    } else consecutiveNonImprovements += 1;
    consecutiveCrashes = row.status === 'crash' ? consecutiveCrashes + 1 : 0;
  }
  if (!incumbent) throw new Error('deriveCounters needs a baseline row');
  return { counts, consecutiveNonImprovements, consecutiveCrashes, incumbent };
}

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
