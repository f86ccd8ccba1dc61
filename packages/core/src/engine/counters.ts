import type { IterationRecord, StatusCounts } from '../contracts/iteration-record.js';

/**
 * The loop's counters, advanced by one row at a time (O(1) per iteration, whatever the length of
 * the run). A resumed loop folds its rows through {@link advanceCounters}, so it has exactly the
 * counters of an uninterrupted one.
 */
export interface Counters {
  counts: StatusCounts;
  consecutiveNonImprovements: number;
  consecutiveCrashes: number;
  consecutiveSameError: number;
  consecutiveNoChange: number;
  lastError: string | undefined;
  /** The incumbent: the last baseline or kept row. */
  incumbent: IterationRecord | undefined;
  /** The best kept score after each row, index = position in the history. */
  bestTrail: number[];
}

/** Fresh counters (before the baseline). */
export function emptyCounters(): Counters {
  return {
    counts: { kept: 0, reverted: 0, rejected: 0, crash: 0, halted: 0 },
    consecutiveNonImprovements: 0,
    consecutiveCrashes: 0,
    consecutiveSameError: 0,
    consecutiveNoChange: 0,
    lastError: undefined,
    incumbent: undefined,
    bestTrail: [],
  };
}

/** Advances `c` by `row` in place; `best` is the best kept score after the row. */
export function advanceCounters(c: Counters, row: IterationRecord, best: number): void {
  c.bestTrail.push(best);
  if (row.status === 'baseline') {
    c.incumbent = row;
    return;
  }
  c.counts[row.status] += 1;
  if (row.status === 'kept') {
    c.incumbent = row;
    c.consecutiveNonImprovements = 0;
  } else c.consecutiveNonImprovements += 1;
  if (row.status === 'crash') {
    c.consecutiveCrashes += 1;
    const error = row.error ?? row.description;
    c.consecutiveSameError = error === c.lastError ? c.consecutiveSameError + 1 : 1;
    c.lastError = error;
  } else {
    c.consecutiveCrashes = 0;
    c.consecutiveSameError = 0;
    c.lastError = undefined;
  }
  if (row.changedFiles !== undefined)
    c.consecutiveNoChange = row.changedFiles.length === 0 ? c.consecutiveNoChange + 1 : 0;
  else c.consecutiveNoChange = 0;
}

/** Counters of a whole history (resume): the fold of {@link advanceCounters}. */
export function countersOf(history: readonly IterationRecord[]): Counters {
  const c = emptyCounters();
  let best = Number.NaN;
  for (const row of history) {
    if ((row.status === 'baseline' || row.status === 'kept') && row.score !== null) best = row.score;
    advanceCounters(c, row, best);
  }
  return c;
}
