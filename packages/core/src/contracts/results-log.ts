import type { IterationRecord } from './iteration-record.js';
import type { MaybePromise } from './types.js';

/**
 * The durable history of a loop: one row per iteration, baseline first. The engine appends a row
 * (flushed to disk) BEFORE it rolls anything back, so a crash never loses the record of what was
 * tried, and reads the rows back on resume.
 */
export interface ResultsLog {
  /** Used in errors and logs. */
  readonly name: string;
  /** Where the rows live, when they live in a file. */
  readonly path?: string;
  /**
   * Decimal places the log rounds scores to, when it rounds (seed 002's results.tsv: 2). Resume
   * then takes the full-precision best and baseline from the state store when they round to the
   * logged ones, so decisions after a resume equal an uninterrupted run's. @default exact
   */
  readonly decimals?: number;
  /** Appends one row durably (written and flushed before it returns). */
  readonly append: (record: IterationRecord) => MaybePromise<void>;
  /** Every row so far, baseline first; an empty list when there is none. */
  readonly read: () => MaybePromise<IterationRecord[]>;
  /**
   * Optional: replaces the last row durably (atomic rewrite). The engine uses it once per run at
   * most, when the rollback of the row it just appended fails: the row becomes class `halted` with
   * the `restore-failed` label (seed 002: "set the distinct loud status restore-failed, append the
   * row, and HALT"). Without it the engine appends a separate `halted` row for the next iteration.
   */
  readonly amendLast?: (record: IterationRecord) => MaybePromise<void>;
}

/** An in-memory results log (for tests and hosts that keep history themselves). */
export function createMemoryResultsLog(initial: readonly IterationRecord[] = []): ResultsLog & {
  readonly rows: IterationRecord[];
} {
  const rows = [...initial];
  return {
    name: 'memory',
    rows,
    append: (r) => void rows.push(r),
    read: () => [...rows],
    amendLast: (r) => {
      if (rows.length > 0) rows[rows.length - 1] = r;
    },
  };
}

/**
 * Makes free text safe for one TSV cell: tabs, carriage returns and newlines become spaces, runs
 * of whitespace collapse, and the ends are trimmed. A row then always has the right number of tabs.
 */
export function sanitizeCell(text: string): string {
  return text
    .replace(/[\t\r\n\v\f]+/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
}
