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
  /** Appends one row durably (written and flushed before it returns). */
  readonly append: (record: IterationRecord) => MaybePromise<void>;
  /** Every row so far, baseline first; an empty list when there is none. */
  readonly read: () => MaybePromise<IterationRecord[]>;
}

/** An in-memory results log (for tests and hosts that keep history themselves). */
export function createMemoryResultsLog(initial: readonly IterationRecord[] = []): ResultsLog & {
  readonly rows: IterationRecord[];
} {
  const rows = [...initial];
  return { name: 'memory', rows, append: (r) => void rows.push(r), read: () => [...rows] };
}

/**
 * Makes free text safe for one TSV cell: tabs, carriage returns and newlines become spaces, runs
 * of whitespace collapse, and the ends are trimmed. A row then always has the right number of tabs.
 */
export function sanitizeCell(text: string): string {
  return text.replace(/[\t\r\n\v\f]+/g, ' ').replace(/\s{2,}/g, ' ').trim();
}
