import { LoopError, parseAutoIterateTsv, sanitizeCell, type Direction } from '@loop/core';

/** How one experiment is drawn. */
export type PointKind = 'baseline' | 'keep' | 'discard' | 'crash';

/** One experiment of a results.tsv, as the plot sees it. */
export interface PlotPoint {
  /** 0 for the baseline, then 1, 2, ... */
  readonly iteration: number;
  /** The score, or `null` for a crash or a rejected proposal. */
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

/** A parsed results.tsv of either form. */
export interface ResultsData {
  /** `auto-iterate` (`commit score status description`) or `autoresearch` (`iter ... status snapshot utc`). */
  readonly form: 'auto-iterate' | 'autoresearch';
  /** The score column's name (`score`, `composite`, `pass_rate`, ...). */
  readonly metric: string;
  /** Every row, baseline first. */
  readonly points: readonly PlotPoint[];
  /** Which way scores improve, when the form implies it (autoresearch: maximize). */
  readonly direction?: Direction;
}

function parseAutoresearch(text: string, path: string): ResultsData {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l !== '');
  const header = (lines[0] ?? '').split('\t');
  if (header.length < 5 || header.at(-3) !== 'status' || header.at(-2) !== 'snapshot' || header.at(-1) !== 'utc') {
    throw new LoopError('RESULTS_CORRUPT', `[loop] [cli] ${path}:1: an autoresearch results.tsv header is "iter ... status snapshot utc", found "${header.join(' ')}"`, { details: { path, line: 1 } });
  }
  const metric = header.includes('composite') ? 'composite' : (header[1] ?? 'score');
  const column = header.indexOf(metric);
  const points = lines.slice(1).map((line, index): PlotPoint => {
    const cells = line.split('\t');
    if (cells.length !== header.length) {
      throw new LoopError('RESULTS_CORRUPT', `[loop] [cli] ${path}:${index + 2}: expected ${header.length} tab-separated columns, found ${cells.length}`, { details: { path, line: index + 2 } });
    }
    const status = cells.at(-3) ?? '';
    const snapshot = cells.at(-2) ?? '';
    const kind: PointKind =
      status === 'baseline' ? 'baseline' : status === 'kept' ? 'keep' : status.startsWith('reverted') ? 'discard' : 'crash';
    const n = Number(cells[column]);
    const score = kind !== 'crash' && cells[column]?.trim() !== '' && Number.isFinite(n) ? n : null;
    const iteration = Number.parseInt(cells[0] ?? '', 10);
    return { iteration: Number.isFinite(iteration) ? iteration : index, score, kind, description: `${status} ${snapshot}`.trim(), status, id: snapshot === '-' ? '' : snapshot };
  });
  return { form: 'autoresearch', metric, points, direction: 'maximize' };
}

/**
 * Parses a results.tsv of either form: auto-iterate (`commit score status description`, via
 * core's parser) or autoresearch (`iter ... status snapshot utc`, right-anchored).
 *
 * @throws {LoopError} `RESULTS_CORRUPT` naming the file and line.
 */
export function parseResults(text: string, path = 'results.tsv'): ResultsData {
  if (text.startsWith('iter\t')) return parseAutoresearch(text, path);
  const rows = parseAutoIterateTsv(text, path);
  const header = (text.split('\n', 1)[0] ?? '').split('\t');
  return {
    form: 'auto-iterate',
    metric: header[1]?.trim() || 'score',
    points: rows.map((r) => ({
      iteration: r.iteration,
      score: r.status === 'crash' ? null : r.score,
      kind: r.status === 'baseline' ? 'baseline' : r.status === 'kept' ? 'keep' : r.status === 'crash' ? 'crash' : 'discard',
      description: sanitizeCell(r.description),
      status: r.status === 'baseline' || r.status === 'kept' ? 'keep' : r.status === 'crash' ? 'crash' : 'discard',
      id: r.candidateId,
    })),
  };
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
