/**
 * @loop/autoresearch/results-tsv: seed 002's results.tsv format (`iter composite delta <dimension ids>
 * status snapshot utc`, two decimals, the seed's status names), for readers of a pass's log (the CLI's
 * `loop report`, dashboards) and writers of their own rows.
 *
 * @example
 * import { parseResultsTsv, resultsStatusClass } from '@loop/autoresearch/results-tsv';
 *
 * const { rows } = parseResultsTsv(await readFile('results.tsv', 'utf8'));
 * const kept = rows.filter((r) => resultsStatusClass(r.status) === 'kept').length;
 *
 * @packageDocumentation
 * @module @loop/autoresearch/results-tsv
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LoopError } from '@loop/core';
import { appendDurable, sanitizeCell } from '@loop/core/files';
import type { AutoresearchMode } from './statuses.js';

/** AR-1's dimension ids, the exact criterion ids used as results.tsv columns (seed 002). */
export const AR1_DIMENSIONS = [
  'structural_health',
  'loudness_of_failures',
  'naming_clarity',
  'docs_traceability',
] as const;
/** AR-2's dimension ids (seed 002). */
export const AR2_DIMENSIONS = ['quality', 'pass_rate', 'coverage'] as const;
/** AR-3's dimension ids: its only in-between columns (no composite or delta, seed 002). */
export const AR3_DIMENSIONS = ['pass_rate', 'why_alignment'] as const;

/** Each pass's dimension ids. */
export const PASS_DIMENSIONS: Readonly<Record<AutoresearchMode, readonly string[]>> = {
  design: AR1_DIMENSIONS,
  function: AR2_DIMENSIONS,
  acceptance: AR3_DIMENSIONS,
};

/** The common trailing columns, always the last three (seed 002 right-anchored rule). */
export const TRAILING_COLUMNS = ['status', 'snapshot', 'utc'] as const;

/**
 * The results.tsv header of a pass (seed 002 setup step 4): `iter composite delta <dimension ids>
 * status snapshot utc` for AR-1 and AR-2; `iter pass_rate why_alignment status snapshot utc` for AR-3.
 *
 * @throws {LoopError} `CONFIG_INVALID` for a single-letter dimension id (S/L/N/D are chat-only) or a duplicate.
 */
export function resultsHeader(mode: AutoresearchMode, dimensions: readonly string[] = PASS_DIMENSIONS[mode]): string[] {
  const bad = dimensions.filter((d) => d.length < 2 || /\s/.test(d));
  if (bad.length > 0) {
    throw new LoopError(
      'CONFIG_INVALID',
      `[loop] [autoresearch] dimension ids ${bad.join(', ')} cannot be ` +
        `results.tsv columns: use the exact criterion ids (single-letter ` +
        `abbreviations are for the chat line only)`,
      { details: { bad } },
    );
  }
  const middle = mode === 'acceptance' ? [...dimensions] : ['composite', 'delta', ...dimensions];
  const header = ['iter', ...middle, ...TRAILING_COLUMNS];
  if (new Set(header).size !== header.length)
    throw new LoopError('CONFIG_INVALID', `[loop] [autoresearch] duplicate results.tsv column in ${header.join(' ')}`);
  return header;
}

/** One results.tsv row, read right-anchored. */
export interface ResultsRow {
  /** First column: an integer for AR-1/AR-2, a string id (`ar3-r<R>`) for AR-3. */
  readonly iter: string;
  /** The in-between columns keyed by the header's names (composite, delta, dimension ids). */
  readonly columns: Readonly<Record<string, string>>;
  /** Third column from the end. */
  readonly status: string;
  /** Second column from the end: the pre-edit snapshot file name(s), `-` for none. */
  readonly snapshot: string;
  /** Last column: ISO-8601 UTC. */
  readonly utc: string;
}

/** A parsed results.tsv. */
export interface ParsedResults {
  /** The header's columns. */
  readonly header: readonly string[];
  /** The pass's own columns, between iter and status. */
  readonly middle: readonly string[];
  /** The data rows, in file order. */
  readonly rows: readonly ResultsRow[];
}

/**
 * The one results.tsv reader for every pass (seed 002 right-anchored positional parse rule): the
 * first column is iter and the last three are status, snapshot, utc; everything between is keyed by
 * the header row, never by fixed positions. A row with a different number of cells (for example
 * trailing free text after utc) is rejected.
 *
 * @throws {LoopError} `RESULTS_CORRUPT` naming the file and line.
 */
export function parseResultsTsv(text: string, path = 'results.tsv'): ParsedResults {
  const lines = text.split('\n').filter((l, i, all) => !(l === '' && i === all.length - 1));
  const corrupt = (line: number, why: string) =>
    new LoopError(
      'RESULTS_CORRUPT',
      `[loop] [autoresearch] ${path} line ${line}: ${why}; fix or move the file away to start a new pass`,
      { details: { path, line } },
    );
  const header = (lines[0] ?? '').split('\t');
  if (header[0] !== 'iter' || header.slice(-3).join('\t') !== TRAILING_COLUMNS.join('\t') || header.length < 4) {
    throw corrupt(1, `the header must be iter ... status snapshot utc, found "${header.join(' ')}"`);
  }
  const short = header.filter((h) => h.length < 2);
  if (short.length > 0)
    throw corrupt(1, `single-letter column names (${short.join(', ')}) are not allowed; use the exact criterion ids`);
  const middle = header.slice(1, -3);
  const rows: ResultsRow[] = [];
  for (let i = 1; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const cells = line.split('\t');
    if (cells.length !== header.length)
      throw corrupt(
        i + 1,
        `expected ${header.length} tab-separated cells, found ${cells.length} (no free text after utc)`,
      );
    const columns: Record<string, string> = {};
    middle.forEach((name, j) => {
      columns[name] = cells[j + 1]!;
    });
    rows.push({ iter: cells[0]!, columns, status: cells.at(-3)!, snapshot: cells.at(-2)!, utc: cells.at(-1)! });
  }
  return { header, middle, rows };
}

/** Formats one row for `header`; every cell is sanitised (no tabs or newlines) and a missing column is `-`. */
export function formatResultsRow(header: readonly string[], row: ResultsRow): string {
  const middle = header.slice(1, -3).map((name) => row.columns[name] ?? '-');
  return [row.iter, ...middle, row.status, row.snapshot, row.utc].map((c) => sanitizeCell(String(c)) || '-').join('\t');
}

/** The results.tsv of one pass. */
export interface ResultsFile {
  /** Absolute path ({{RECORD_FILE}}). */
  readonly path: string;
  /** The header's columns. */
  readonly header: readonly string[];
  /** The data rows found when it was opened (empty for a new pass). */
  readonly existing: readonly ResultsRow[];
  /** True when the file already had data rows: resume from the next iter, never re-baseline. */
  readonly resumed: boolean;
  /** Appends one row durably (appended, fsynced). */
  readonly append: (row: ResultsRow) => Promise<void>;
  /** Re-reads every data row from disk. */
  readonly read: () => Promise<readonly ResultsRow[]>;
}

/**
 * Opens a pass's results.tsv (seed 002 setup step 4): an absent or header-only file is
 * (re)initialised with the pass's header; a file with data rows is resumed (never re-baselined) and
 * must carry exactly this header.
 *
 * @throws {LoopError} `RESULTS_CORRUPT` when a file with data rows has another header or a bad row.
 */
export async function openResultsFile(path: string, header: readonly string[]): Promise<ResultsFile> {
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  let existing: readonly ResultsRow[] = [];
  const hasData =
    text !== undefined &&
    text
      .split('\n')
      .slice(1)
      .some((l) => l.trim() !== '');
  if (hasData) {
    const parsed = parseResultsTsv(text!, path);
    if (parsed.header.join('\t') !== header.join('\t')) {
      throw new LoopError(
        'RESULTS_CORRUPT',
        `[loop] [autoresearch] ${path} has data rows under another header ` +
          `("${parsed.header.join(' ')}", expected "${header.join(' ')}"); it ` +
          `belongs to another pass: move it away`,
        { details: { path, found: parsed.header, expected: header } },
      );
    }
    existing = parsed.rows;
  } else {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${header.join('\t')}\n`);
  }
  return {
    path,
    header,
    existing,
    resumed: hasData,
    append: (row) => appendDurable(path, `${formatResultsRow(header, row)}\n`),
    read: async () => parseResultsTsv(await readFile(path, 'utf8'), path).rows,
  };
}

/**
 * How a results.tsv status is counted and drawn (`loop report`): `baseline` (row 0), `kept` (the
 * edit or state stays), `reverted` (not kept; the pass goes on), `crash` (the proposer or the harness
 * failed) or `halted` (the pass stopped loudly and needs a look).
 */
export type ResultsStatusClass = 'baseline' | 'kept' | 'reverted' | 'crash' | 'halted';

/** The class of every status seed 002 writes, AR-1/AR-2 loop rows and AR-3 round decisions alike. */
const STATUS_CLASSES: Readonly<Record<string, ResultsStatusClass>> = {
  baseline: 'baseline',
  kept: 'kept',
  reverted: 'reverted',
  'reverted-redtest': 'reverted',
  crash: 'crash',
  'restore-failed': 'halted',
  'rubric-tampered': 'halted',
  'harness-tampered': 'halted', // a harness file changed mid-pass ("never edit the harness")
  'needs-human': 'halted', // the idea needs a dependency, migration or secret: surfaced, not applied
  'state-write-failed': 'halted',
  done: 'kept', // AR-3: the DONE condition holds (pass_rate >= target, no blockers)
  develop: 'reverted', // AR-3: gaps remain; the pipeline re-enters DEVELOP for another round
  escalate: 'halted', // AR-3: max_acceptance_rounds reached with open blockers; the user decides
};

/**
 * The class of a results.tsv `status` cell (seed 002's status names, see {@link ResultsStatusClass}):
 * `reverted-<why>` is a revert; any other status it does not know is `halted`, drawn loud rather
 * than guessed as a keep or a crash.
 */
export function resultsStatusClass(status: string): ResultsStatusClass {
  return STATUS_CLASSES[status] ?? (status.startsWith('reverted-') ? 'reverted' : 'halted');
}
