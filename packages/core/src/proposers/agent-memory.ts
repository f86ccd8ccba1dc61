import type { IterationRecord } from '../contracts/iteration-record.js';
import { sanitizeCell } from '../contracts/results-log.js';

/** How much of the notes file goes into a prompt: the newest `maxLines` non-empty lines, at most `maxBytes` bytes. */
export interface NotesLimits {
  /** Notes (non-empty lines) carried, newest first. @default 40 */
  readonly maxLines: number;
  /** UTF-8 bytes of notes carried; older lines that do not fit are left out whole. @default 4096 */
  readonly maxBytes: number;
}

/** The default {@link NotesLimits}: 40 lines, 4096 bytes. */
export const NOTES_LIMITS: NotesLimits = { maxLines: 40, maxBytes: 4096 };

/** One discarded candidate's change, as rollback-git keeps it (`refs/loop/discarded/<iteration>`). */
export interface DiscardedDiff {
  /** The row's iteration. */
  readonly iteration: number;
  /** The unified diff of the candidate against the state it was tried on (cut to the byte cap). */
  readonly diff: string;
}

/** What {@link buildMemorySections} adds to an agent's prompt besides the history. */
export interface AgentMemoryOptions {
  /** The notes file's text and the absolute path the agent appends to. @default no notes section */
  readonly notes?: { readonly text: string; readonly path: string; readonly limits?: NotesLimits };
  /** The last discarded candidates' diffs, oldest first. @default none */
  readonly diffs?: readonly DiscardedDiff[];
  /** Lines about earlier runs in this workspace (where their rows are). @default none */
  readonly earlierRuns?: readonly string[];
  /** Discards to name in the revisit hint. @default 3 */
  readonly revisitCount?: number;
}

/** A row the engine refused as a duplicate: ` (duplicate of iteration N: not evaluated)` in its description. */
export const DUPLICATE_ROW = /\(duplicate of iteration (\d+): not evaluated\)/;

/**
 * The notes carried into a prompt: the newest non-empty lines first, at most `limits.maxLines` of
 * them and `limits.maxBytes` UTF-8 bytes (a line that would go over is left out with every older
 * one). `omitted` counts the notes left out.
 */
export function readNotes(text: string, limits: NotesLimits = NOTES_LIMITS): { lines: string[]; omitted: number } {
  const all = text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .reverse();
  const lines: string[] = [];
  let bytes = 0;
  for (const line of all) {
    const size = Buffer.byteLength(line, 'utf8') + 1;
    if (lines.length >= limits.maxLines || bytes + size > limits.maxBytes) break;
    lines.push(line);
    bytes += size;
  }
  return { lines, omitted: all.length - lines.length };
}

/** The duplicates at the tail of the history: the proposals just refused, with the iteration each repeated. */
function duplicateLines(history: readonly IterationRecord[]): string[] {
  const out: string[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const m = DUPLICATE_ROW.exec(history[i]!.description);
    if (!m) break;
    out.unshift(
      `- iteration ${history[i]!.iteration} produced exactly the files of ` +
        `iteration ${m[1]}, which was already evaluated, so it was not run ` +
        `again.`,
    );
  }
  return out;
}

/** Reverted rows that were scored against a state a later keep has since changed, newest first. */
function revisitLines(history: readonly IterationRecord[], count: number): string[] {
  const out: string[] = [];
  let keptSince: number[] = [];
  for (let i = history.length - 1; i >= 0 && out.length < count; i--) {
    const r = history[i]!;
    if (r.status === 'kept') keptSince = [r.iteration, ...keptSince];
    else if (
      r.status === 'reverted' &&
      r.score !== null &&
      keptSince.length > 0 &&
      !DUPLICATE_ROW.test(r.description)
    ) {
      const since = keptSince.length > 3 ? `${keptSince.slice(0, 3).join(', ')}, ...` : keptSince.join(', ');
      out.push(
        `- iteration ${r.iteration} (score ${r.score}): ${sanitizeCell(r.description)}; kept since: iteration ${since}`,
      );
    }
  }
  return out;
}

/**
 * The memory sections of an agent's prompt, in this order: the duplicates just refused (with the
 * iteration each repeated), the notes (newest first, bounded), the last discarded diffs, the
 * discards worth revisiting (scored against a state later keeps changed) and the earlier runs.
 * Returns the lines (a blank line after each section); none when there is nothing to say.
 */
export function buildMemorySections(history: readonly IterationRecord[], memory: AgentMemoryOptions): string[] {
  const lines: string[] = [];
  const dups = duplicateLines(history);
  if (dups.length > 0) {
    lines.push(
      '## Your last proposal was a duplicate',
      ...dups,
      'Do not repeat an earlier candidate: make a different change.',
      '',
    );
  }
  if (memory.notes) {
    const { lines: notes, omitted } = readNotes(memory.notes.text, memory.notes.limits);
    const older = omitted > 0 ? `; ${omitted} older left out, the file has them all` : '';
    lines.push(`## Notes (newest first${older})`, ...(notes.length > 0 ? notes.map((n) => `- ${n}`) : ['(none yet)']));
    lines.push(
      `Append one line per lesson worth keeping (what worked, what failed and ` +
        `why) to ${memory.notes.path}; it is carried into every next prompt.`,
      '',
    );
  }
  if (memory.diffs && memory.diffs.length > 0) {
    lines.push('## The last discarded changes (diffs; do not retry them as they are)');
    for (const d of memory.diffs) {
      const row = history.find((r) => r.iteration === d.iteration);
      const what = row ? ` (${row.status}, score ${row.score ?? '-'}): ${sanitizeCell(row.description)}` : '';
      lines.push(`### iteration ${d.iteration}${what}`, '```diff', d.diff.trimEnd(), '```');
    }
    lines.push('');
  }
  const revisit = revisitLines(history, memory.revisitCount ?? 3);
  if (revisit.length > 0) {
    lines.push(
      '## Worth revisiting',
      'These were discarded against an earlier state; kept changes since may make them win now:',
      ...revisit,
      '',
    );
  }
  if (memory.earlierRuns && memory.earlierRuns.length > 0) {
    lines.push(
      '## Earlier runs in this workspace (read their rows if useful)',
      ...memory.earlierRuns.map((l) => `- ${l}`),
      '',
    );
  }
  return lines;
}

/**
 * The rows whose discarded candidate's diff a prompt shows: the last `count` reverted or crashed
 * rows that were committed (a candidate id) and evaluated (not a duplicate nor a no-change row).
 */
export function discardedRowsForPrompt(history: readonly IterationRecord[], count: number): IterationRecord[] {
  const out: IterationRecord[] = [];
  for (let i = history.length - 1; i >= 0 && out.length < count; i--) {
    const r = history[i]!;
    if (
      (r.status === 'reverted' || r.status === 'crash') &&
      r.candidateId !== '' &&
      !DUPLICATE_ROW.test(r.description) &&
      !r.description.includes('(no change: not evaluated)')
    )
      out.unshift(r);
  }
  return out;
}
