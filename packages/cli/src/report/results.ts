import { parseAutoIterateTsv, toAutoIterateStatus } from '@loop/auto-iterate';
import { parseResultsTsv, resultsStatusClass, type ResultsStatusClass } from '@loop/autoresearch/results-tsv';
import { LoopError, type Direction, type IterationStatus } from '@loop/core';
import { sanitizeCell } from '@loop/core/files';

/**
 * How one experiment is drawn: its status's class, in the plot's words. `keep` is the kept class,
 * `discard` the reverted one (auto-iterate's discard and rejected, autoresearch's reverted,
 * reverted-redtest and AR-3's develop), `crash` a failed run, `halted` a row that stopped the run
 * loudly (autoresearch's restore-failed, rubric-tampered, state-write-failed, AR-3's escalate).
 */
export type PointKind = 'baseline' | 'keep' | 'discard' | 'crash' | 'halted';

/** One experiment of a results.tsv, as the plot sees it. */
export interface PlotPoint {
  /** 0 for the baseline, then 1, 2, ... (AR-3: the round R of `ar3-r<R>`). */
  readonly iteration: number;
  /** The score, or `null` for a crash, a rejected proposal or a row without one. */
  readonly score: number | null;
  /** How it is drawn. */
  readonly kind: PointKind;
  /** The row's short description (auto-iterate) or status and snapshot (autoresearch). */
  readonly description: string;
  /** The status word as written in the file. */
  readonly status: string;
  /** The commit or snapshot id, `''` when none. */
  readonly id: string;
}

/** The two results.tsv formats `loop report` reads, each with its preset's own reader. */
export type ResultsForm = 'auto-iterate' | 'autoresearch';

/** A parsed results.tsv of either form. */
export interface ResultsData {
  /** `auto-iterate` (`commit score status description`) or `autoresearch` (`iter ... status snapshot utc`). */
  readonly form: ResultsForm;
  /** The score column's name (`score`, `metric`, `composite`, AR-3's `pass_rate`). */
  readonly metric: string;
  /** Every row, baseline first. */
  readonly points: readonly PlotPoint[];
  /** Which way scores improve, when the form implies it (autoresearch: maximize). */
  readonly direction?: Direction;
}

/**
 * Which format a results.tsv is in, from its header: `commit ...` is auto-iterate's (seeds
 * 001/003), `iter ...` autoresearch's (seed 002). An empty file is an auto-iterate run with no rows.
 *
 * @throws {LoopError} `RESULTS_CORRUPT` naming the file's line 1 for any other header.
 */
export function detectResultsForm(text: string, path = 'results.tsv'): ResultsForm {
  const first = (text.split('\n', 1)[0] ?? '').replace(/\r$/, '');
  const column = first.split('\t')[0];
  if (first === '' || column === 'commit') return 'auto-iterate';
  if (column === 'iter') return 'autoresearch';
  throw new LoopError(
    'RESULTS_CORRUPT',
    `[loop] [cli] ${path}:1: not a results.tsv of a known form: expected ` +
      `"commit score status description" (auto-iterate) or "iter ... status ` +
      `snapshot utc" (autoresearch), found "${first.replaceAll('\t', ' ')}"`,
    { details: { path, line: 1 } },
  );
}

const AUTO_ITERATE_KINDS: Readonly<Record<IterationStatus, PointKind>> = {
  baseline: 'baseline',
  kept: 'keep',
  reverted: 'discard',
  rejected: 'discard',
  crash: 'crash',
  halted: 'halted',
} as Record<IterationStatus, PointKind>;

function autoIterateData(text: string, path: string): ResultsData {
  const rows = parseAutoIterateTsv(text, path);
  const header = (text.split('\n', 1)[0] ?? '').split('\t');
  return {
    form: 'auto-iterate',
    metric: header[1]?.trim() || 'score',
    points: rows.map((r) => ({
      iteration: r.iteration,
      score: r.status === 'crash' ? null : r.score,
      kind: AUTO_ITERATE_KINDS[r.status] ?? 'halted',
      description: sanitizeCell(r.description),
      status: toAutoIterateStatus(r.status),
      id: r.candidateId,
    })),
  };
}

const AUTORESEARCH_KINDS: Readonly<Record<ResultsStatusClass, PointKind>> = {
  baseline: 'baseline',
  kept: 'keep',
  reverted: 'discard',
  crash: 'crash',
  halted: 'halted',
};

function autoresearchData(text: string, path: string): ResultsData {
  const parsed = parseResultsTsv(text, path);
  // AR-1/AR-2 score on composite; AR-3 has no composite: its first column is pass_rate.
  const metric = parsed.middle.includes('composite') ? 'composite' : (parsed.middle[0] ?? 'score');
  const points = parsed.rows.map((row, index): PlotPoint => {
    const kind = AUTORESEARCH_KINDS[resultsStatusClass(row.status)];
    const cell = row.columns[metric]?.trim() ?? '';
    const n = Number(cell);
    const score = kind !== 'crash' && cell !== '' && cell !== '-' && Number.isFinite(n) ? n : null;
    const iter = /^(?:ar3-r)?(\d+)$/.exec(row.iter)?.[1];
    const snapshot = row.snapshot === '-' ? '' : row.snapshot;
    return {
      iteration: iter === undefined ? index : Number(iter),
      score,
      kind,
      description: `${row.status} ${snapshot}`.trim(),
      status: row.status,
      id: snapshot,
    };
  });
  return { form: 'autoresearch', metric, points, direction: 'maximize' };
}

/**
 * Parses a results.tsv of either form, each with its preset's own reader: auto-iterate's
 * `parseAutoIterateTsv` (`@loop/auto-iterate`) or autoresearch's right-anchored `parseResultsTsv`
 * and `resultsStatusClass` (`@loop/autoresearch`). Every status is drawn with its class.
 *
 * @throws {LoopError} `RESULTS_CORRUPT` naming the file and line.
 */
export function parseResults(text: string, path = 'results.tsv'): ResultsData {
  return detectResultsForm(text, path) === 'autoresearch' ? autoresearchData(text, path) : autoIterateData(text, path);
}

/**
 * Guesses the direction from the kept rows: if the first kept score after the baseline is lower
 * than the baseline, lower is better. `minimize` when there is nothing to go on.
 */
export function inferDirection(points: readonly PlotPoint[]): Direction {
  const base = points.find((p) => p.kind === 'baseline' && p.score !== null)?.score;
  const kept = points.find((p) => p.kind === 'keep' && p.score !== null)?.score;
  if (base === undefined || base === null || kept === undefined || kept === null) return 'minimize';
  return kept > base ? 'maximize' : 'minimize';
}

/** The running best after each row (baseline and kept rows only move it), `null` before any score. */
export function runningBest(points: readonly PlotPoint[], direction: Direction): Array<number | null> {
  let best: number | null = null;
  return points.map((p) => {
    if ((p.kind === 'baseline' || p.kind === 'keep') && p.score !== null) {
      if (best === null || (direction === 'minimize' ? p.score < best : p.score > best)) best = p.score;
    }
    return best;
  });
}
