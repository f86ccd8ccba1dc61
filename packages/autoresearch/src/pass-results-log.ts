import { readFile, writeFile } from 'node:fs/promises';
import { type Clock, type IterationRecord, type IterationStatus, type ResultsLog } from '@loop/core';
import { appendDurable, writeTextAtomic } from '@loop/core/files';
import { formatScore } from './format.js';
import { formatResultsRow, openResultsFile, resultsStatusClass, type ResultsRow } from './results-tsv.js';

/** One line of the full-precision twin of results.tsv (`results.jsonl`). */
interface PreciseRow {
  readonly iteration: number;
  /** The status written to results.tsv (a label, or the class). */
  readonly status: string;
  /** The engine's class of the row (a user guard's own label, e.g. `banned`, keeps its class on resume). */
  readonly class?: IterationStatus;
  readonly score: number | null;
  readonly candidateId: string;
  readonly description: string;
  readonly note?: string;
  /** The pass's own data for the row (AR-3: the round's open blockers). */
  readonly extra?: unknown;
  readonly dimensions?: Readonly<Record<string, number>>;
  readonly gates?: Readonly<Record<string, boolean>>;
}

/** Options of {@link createPassResultsLog}. */
export interface PassResultsLogOptions {
  /** Absolute path of results.tsv ({{RECORD_FILE}}). */
  readonly path: string;
  /** The pass's header (`resultsHeader(mode, dimensions)`). */
  readonly header: readonly string[];
  /** The pass's dimension ids (the columns between delta and status). */
  readonly dimensions: readonly string[];
  /** The utc column's clock. */
  readonly clock: Clock;
  /** The snapshot cell of a row: the pre-edit copies' names (`-` for none); row 0 gets the baseline directory. */
  readonly snapshotOf: (record: IterationRecord) => string;
  /** On resume without a full-precision twin: the kept directory of a kept iteration (`''` when unknown). */
  readonly keptIdOf?: (iteration: number) => Promise<string>;
  /**
   * AR-3's rows (`iter pass_rate why_alignment status - utc`): iteration R is `ar3-r<R>`, there is
   * no composite or delta, and the engine's baseline (iteration 0, AR-3 has none) is not written:
   * reading synthesises it. @default false
   */
  readonly rounds?: boolean;
  /**
   * The pass's own data stored with a row in the twin (AR-3: the open blockers), read back by `extra`. @default none
   */
  readonly extraOf?: (record: IterationRecord) => unknown;
}

/** The pass's results log: a core {@link ResultsLog} plus what the pass reads back. */
export interface PassResultsLog extends ResultsLog {
  /** results.tsv's absolute path. */
  readonly path: string;
  /** True when results.tsv had data rows when it was opened (resume: never re-baseline). */
  readonly resumed: boolean;
  /** Every row as written (results.tsv's cells), oldest first. */
  readonly rows: () => readonly ResultsRow[];
  /** The `extraOf` data stored with iteration `iteration`'s row (the last twin line that matches it), after `read`. */
  readonly extra: (iteration: number) => unknown;
}

/** The status a row's record is written with: its label, else its class (seed 002 status names). */
export function statusOf(record: IterationRecord): string {
  return record.label ?? record.status;
}

/**
 * Seed 002's results.tsv as the engine's {@link ResultsLog}: `iter composite delta <dimension ids>
 * status snapshot utc`, two decimals, the status the row's label (`reverted-redtest`,
 * `restore-failed`, `rubric-tampered`, ...) or its class, delta = composite − the best before the
 * row. The file format is results-tsv.ts's, unchanged.
 *
 * Resume precision (issue 11 fault 4): results.tsv rounds to two decimals, so a resumed pass that
 * read `best` back from it would decide differently (6, 7.004, 7.003: kept, reverted straight
 * through; kept, KEPT resumed). Every row is therefore first appended to `results.jsonl` next to it
 * (full-precision score, dimensions, Tier-1 gates, candidate id, description; fsynced), then to
 * results.tsv (fsynced). On read, results.tsv is the truth (seed 002: "results.tsv is the source of
 * truth"): a row takes its exact values from the last twin line with the same iteration and status
 * whose score rounds to the row's composite, else the two-decimal cells. A fresh results.tsv
 * (absent or header-only) truncates the twin.
 *
 * `amendLast` rewrites results.tsv atomically with its last row replaced (the engine's
 * restore-failed halt, seed 002: "set the distinct loud status restore-failed, append the row").
 *
 * @throws {LoopError} `RESULTS_CORRUPT` (from opening) when results.tsv has another pass's header or a bad row.
 */
export async function createPassResultsLog(o: PassResultsLogOptions): Promise<PassResultsLog> {
  const file = await openResultsFile(o.path, o.header);
  const twinPath = o.path.replace(/\.tsv$/, '') + '.jsonl';
  if (!file.resumed) await writeFile(twinPath, '');
  const rows: ResultsRow[] = [...file.existing];
  const exact: PreciseRow[] = file.resumed ? await readTwin(twinPath) : [];
  let bestBefore = Number.NaN;
  let bestBeforeLast = Number.NaN;
  const utc = () => new Date(o.clock.now()).toISOString();
  const extras = new Map<number, unknown>();

  const dimensionCells = (r: IterationRecord) =>
    Object.fromEntries(o.dimensions.map((d) => [d, formatScore(r.dimensions?.[d])]));
  const toRow = (r: IterationRecord, before: number): ResultsRow => ({
    iter: o.rounds ? `ar3-r${r.iteration}` : String(r.iteration),
    columns: o.rounds
      ? dimensionCells(r)
      : {
          composite: formatScore(r.score),
          delta: r.status === 'baseline' ? '0.00' : formatScore(r.score === null ? null : r.score - before),
          ...dimensionCells(r),
        },
    status: statusOf(r),
    snapshot: o.snapshotOf(r) || '-',
    utc: utc(),
  });
  const twinRow = (r: IterationRecord): PreciseRow => ({
    iteration: r.iteration,
    status: statusOf(r),
    class: r.status,
    score: r.score,
    candidateId: r.candidateId,
    description: r.description,
    ...(r.note ? { note: r.note } : {}),
    ...(o.extraOf ? { extra: o.extraOf(r) } : {}),
    ...(r.dimensions ? { dimensions: r.dimensions } : {}),
    ...(r.gates ? { gates: r.gates } : {}),
  });
  // The twin line goes to disk and to `exact`, so this log's own `read` is as precise as a resumed one's.
  const writeTwin = async (r: IterationRecord) => {
    const precise = twinRow(r);
    await appendDurable(twinPath, `${JSON.stringify(precise)}\n`);
    exact.push(precise);
  };
  const advance = (r: IterationRecord) => {
    bestBeforeLast = bestBefore;
    if ((r.status === 'baseline' || r.status === 'kept') && r.score !== null) bestBefore = r.score;
  };

  const read = async (): Promise<IterationRecord[]> => {
    const out: IterationRecord[] = o.rounds && rows.length > 0 ? [ROUNDS_BASELINE] : [];
    bestBefore = Number.NaN;
    for (const row of rows) {
      const iteration = Number.parseInt(o.rounds ? row.iter.replace(/^ar3-r/, '') : row.iter, 10);
      const cell = o.rounds ? row.columns[o.dimensions[0]!] : row.columns.composite;
      const logged = cell === '-' || cell === undefined ? null : Number(cell);
      const twin = [...exact]
        .reverse()
        .find(
          (t) => t.iteration === iteration && t.status === row.status && formatScore(t.score) === formatScore(logged),
        );
      const status = twin?.class ?? (resultsStatusClass(row.status) as IterationStatus);
      const dims = Object.fromEntries(
        o.dimensions.map((d) => [d, Number(row.columns[d])]).filter(([, v]) => Number.isFinite(v as number)),
      );
      let candidateId = twin?.candidateId ?? '';
      if (status === 'baseline') candidateId = row.snapshot;
      else if (status === 'kept' && !candidateId) candidateId = (await o.keptIdOf?.(iteration)) ?? '';
      const record: IterationRecord = {
        iteration,
        candidateId,
        score: twin ? twin.score : logged,
        status,
        description: twin?.description ?? '',
        ...(twin?.note ? { note: twin.note } : {}),
        ...(row.status !== status ? { label: row.status } : {}),
        ...(twin?.dimensions
          ? { dimensions: twin.dimensions }
          : Object.keys(dims).length > 0
            ? { dimensions: dims }
            : {}),
        ...(twin?.gates ? { gates: twin.gates } : {}),
      };
      advance(record);
      if (twin?.extra !== undefined) extras.set(iteration, twin.extra);
      out.push(record);
    }
    return out;
  };

  return {
    name: 'autoresearch-results-tsv',
    path: o.path,
    resumed: file.resumed,
    rows: () => rows,
    extra: (iteration) => extras.get(iteration),
    read,
    append: async (record) => {
      if (o.rounds && record.status === 'baseline') return;
      const row = toRow(record, bestBefore);
      await writeTwin(record);
      await file.append(row);
      rows.push(row);
      if (o.extraOf) extras.set(record.iteration, o.extraOf(record));
      advance(record);
    },
    amendLast: async (record) => {
      const row = toRow(record, bestBeforeLast);
      await writeTwin(record);
      rows[rows.length - 1] = row;
      await writeTextAtomic(
        o.path,
        `${[o.header.join('\t'), ...rows.map((r) => formatResultsRow(o.header, r))].join('\n')}\n`,
      );
      bestBefore = bestBeforeLast;
      advance(record);
    },
  };
}

/** The engine's baseline row of AR-3's rounds (never written: AR-3 has no baseline). */
const ROUNDS_BASELINE: IterationRecord = {
  iteration: 0,
  candidateId: '',
  score: 0,
  status: 'baseline',
  description: 'AR-3 has no baseline',
};

async function readTwin(path: string): Promise<PreciseRow[]> {
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const out: PreciseRow[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v = JSON.parse(line) as PreciseRow;
      if (typeof v.iteration === 'number' && typeof v.status === 'string') out.push(v);
    } catch {
      // a torn last line (killed mid-append): its row never reached results.tsv
    }
  }
  return out;
}
