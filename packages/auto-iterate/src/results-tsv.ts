import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LoopError, type IterationRecord, type IterationStatus, type ResultsLog } from '@loop/core';
import { sanitizeCell } from '@loop/core/files';

/** The header of the auto-iterate results.tsv (seed 001: `commit\tscore\tstatus\tdescription`). */
export const AUTO_ITERATE_TSV_HEADER = 'commit\tscore\tstatus\tdescription';

/** The status words of the auto-iterate form (seeds 001 and 003). */
export type AutoIterateStatus = 'keep' | 'discard' | 'crash';

/** Options of {@link createResultsTsv}. */
export interface ResultsTsvOptions {
  /** Absolute path of results.tsv (seed 003: at the workspace root, never tracked by git). */
  path: string;
  /** Length of the commit column (hash prefix). @default 7 */
  commitLength?: number;
}

/** Maps an engine status onto the auto-iterate words: baseline/kept → keep, reverted/rejected → discard. */
export function toAutoIterateStatus(status: IterationStatus): AutoIterateStatus {
  if (status === 'baseline' || status === 'kept') return 'keep';
  if (status === 'crash') return 'crash';
  return 'discard';
}

/** Prefix of the description of a rejected proposal, so a reader can tell it from a reverted one. */
export const REJECTED_PREFIX = 'rejected: ';

/**
 * Formats one row: `<commit>\t<score>\t<status>\t<description>`. The score is written with full
 * round-trip precision; a crash row's score is the word `crash` (seed 001's example) and a rejected
 * row's is `-`.
 */
export function formatAutoIterateRow(record: IterationRecord, commitLength = 7): string {
  const score = record.score === null ? (record.status === 'crash' ? 'crash' : '-') : String(record.score);
  let description = sanitizeCell(record.description);
  if (record.status === 'rejected' && !description.startsWith(REJECTED_PREFIX)) {
    description = REJECTED_PREFIX + description;
  }
  const commit = sanitizeCell(record.candidateId).slice(0, commitLength) || '-';
  return `${commit}\t${score}\t${toAutoIterateStatus(record.status)}\t${description}`;
}

/**
 * The history block of the agent prompt in this format: a heading, the header and one
 * {@link formatAutoIterateRow} line per row, as the agent would read results.tsv itself. Pass it
 * as `formatHistory` to core's `createAgentCommandProposer` (seed 001: each iteration gets the
 * results so far).
 */
export function formatAutoIterateHistory(history: readonly IterationRecord[]): string {
  return [
    '## Results so far (results.tsv)',
    AUTO_ITERATE_TSV_HEADER,
    ...history.map((r) => formatAutoIterateRow(r)),
  ].join('\n');
}

/**
 * What a results.tsv header that is not auto-iterate's looks like, for the message: karpathy's
 * autoresearch writes `commit val_bpb memory_gb status description` (5 columns).
 */
function foreignHeader(header: string): string {
  const cells = header.split('\t');
  if (cells.length === 5 && cells[0] === 'commit' && cells[3] === 'status' && cells[4] === 'description') {
    return (
      `it looks like a karpathy/autoresearch results.tsv (5 ` +
      `columns: ${cells.join(' ')}), a format loop does not read`
    );
  }
  return `found "${header.replaceAll('\t', ' ')}" (${cells.length} columns), which is not a results.tsv loop wrote`;
}

/**
 * Parses an auto-iterate results.tsv. The first data row is the baseline (iteration 0); the
 * n-th is iteration n. Accepts seed 003's header (`commit\tmetric\tstatus\tdescription`) too.
 *
 * Every row the writer appends ends with a newline, so a last line without one was cut by a kill
 * while it was written (or an editor dropped the newline): it is refused rather than read as a
 * shorter description.
 *
 * @throws {LoopError} `RESULTS_CORRUPT` naming the line when the header or a row is malformed, or
 *   the last row has no final newline (a torn row); for another tool's file the message names the
 *   format it looks like (karpathy/autoresearch's 5 columns).
 */
export function parseAutoIterateTsv(text: string, path = 'results.tsv'): IterationRecord[] {
  const lines = text.split('\n');
  const terminated = lines.at(-1) === '';
  if (terminated) lines.pop();
  if (lines.length === 0) return [];
  const header = lines[0]?.replace(/\r$/, '') ?? '';
  if (header !== AUTO_ITERATE_TSV_HEADER && header !== 'commit\tmetric\tstatus\tdescription') {
    throw new LoopError(
      'RESULTS_CORRUPT',
      `[loop] [results-tsv] ${path}:1: expected the auto-iterate header ` +
        `"${AUTO_ITERATE_TSV_HEADER.replaceAll('\t', ' ')}"; ${foreignHeader(header)}`,
      { details: { path, line: 1, header } },
    );
  }
  if (!terminated && lines.length > 1) {
    const line = lines.length;
    throw new LoopError(
      'RESULTS_CORRUPT',
      `[loop] [results-tsv] ${path}:${line}: the last row has no final ` +
        `newline, so it may have been cut while it was written (a kill); if the ` +
        `row is complete, add the newline; if it is cut, delete line ${line}; ` +
        `then resume`,
      { details: { path, line, torn: true } },
    );
  }
  return lines.slice(1).map((raw, index) => {
    const line = raw.replace(/\r$/, '');
    const cells = line.split('\t');
    const [commit, scoreText, status, ...rest] = cells;
    if (cells.length !== 4 || commit === undefined || scoreText === undefined || status === undefined) {
      throw new LoopError(
        'RESULTS_CORRUPT',
        `[loop] [results-tsv] ${path}:${index + 2}: expected 4 tab-separated columns, found ${cells.length}`,
        { details: { path, line: index + 2 } },
      );
    }
    if (status !== 'keep' && status !== 'discard' && status !== 'crash') {
      throw new LoopError(
        'RESULTS_CORRUPT',
        `[loop] [results-tsv] ${path}:${index + 2}: status "${status}" is not keep, discard or crash`,
        { details: { path, line: index + 2 } },
      );
    }
    const description = rest.join('\t');
    const parsed = Number(scoreText);
    const score = scoreText.trim() !== '' && Number.isFinite(parsed) ? parsed : null;
    let engineStatus: IterationStatus;
    if (index === 0) engineStatus = status === 'keep' ? 'baseline' : 'crash';
    else if (status === 'keep') engineStatus = 'kept';
    else if (status === 'crash') engineStatus = 'crash';
    else engineStatus = description.startsWith(REJECTED_PREFIX) ? 'rejected' : 'reverted';
    if ((engineStatus === 'kept' || engineStatus === 'baseline') && score === null) {
      throw new LoopError(
        'RESULTS_CORRUPT',
        `[loop] [results-tsv] ${path}:${index + 2}: a keep row needs a numeric score, found "${scoreText}"`,
        { details: { path, line: index + 2 } },
      );
    }
    return { iteration: index, candidateId: commit === '-' ? '' : commit, score, status: engineStatus, description };
  });
}

/**
 * The auto-iterate results.tsv (seeds 001 and 003): header first, one line per iteration,
 * `commit score status description` with status keep / discard / crash. Each append is written
 * and fsynced before it returns; when the file does not end with a newline (an editor dropped it)
 * the append writes one first, so the new row is never glued onto the last one.
 *
 * @throws {LoopError} `RESULTS_CORRUPT` from `read()` when the file is malformed.
 */
export function createResultsTsv(options: ResultsTsvOptions): ResultsLog {
  const { path, commitLength = 7 } = options;
  return {
    name: 'results-tsv',
    path,
    // Synchronous node:fs (issue 31): one open, stat, read, write, fsync and close without six
    // thread-pool round trips; the row is on disk when the returned promise settles, as before.
    append: async (record) => {
      mkdirSync(dirname(path), { recursive: true });
      const fd = openSync(path, 'a+');
      try {
        const { size } = fstatSync(fd);
        let prefix = size === 0 ? `${AUTO_ITERATE_TSV_HEADER}\n` : '';
        if (size > 0) {
          const last = Buffer.alloc(1);
          readSync(fd, last, 0, 1, size - 1);
          if (last[0] !== 0x0a) prefix = '\n';
        }
        writeFileSync(fd, `${prefix}${formatAutoIterateRow(record, commitLength)}\n`, 'utf8');
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
    read: async () => {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      return parseAutoIterateTsv(text, path);
    },
  };
}
