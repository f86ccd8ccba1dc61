import { open, readFile, truncate } from 'node:fs/promises';
import { z } from 'zod';
import { LoopError } from '../contracts/errors.js';
import { appendDurable } from '../files/state-file.js';

/**
 * One line of a step machine journal (append-only JSONL). `intent` is appended, fsynced, before an
 * effect runs; `done` (with the effect's JSON result) after it returned. Both name the run, the
 * visit (the cursor's transition counter), the step and the effect.
 */
export const journalRecordSchema = z.object({
  /** `intent`: the effect is about to run; `done`: it returned `result`. */
  t: z.enum(['intent', 'done']),
  /** The machine run (from 1). */
  run: z.number().int().positive(),
  /** The visit of the step within the run (from 0): a step visited twice has two visits. */
  visit: z.number().int().nonnegative(),
  /** The step name. */
  step: z.string().min(1),
  /** The effect name, unique within one visit. */
  effect: z.string().min(1),
  /** For `done`: the effect's result as JSON (absent when it returned `undefined`). */
  result: z.unknown().optional(),
});

/** One journal line (see {@link journalRecordSchema}). */
export type JournalRecord = z.output<typeof journalRecordSchema>;

/** The key of an effect in the journal: `<run>:<visit>:<step>:<effect>`. */
export function effectKey(record: Pick<JournalRecord, 'run' | 'visit' | 'step' | 'effect'>): string {
  return `${record.run}:${record.visit}:${record.step}:${record.effect}`;
}

/**
 * Reads a journal. A missing file is an empty journal. A last line without its newline is a write
 * cut short by a kill: it is dropped, and the file is truncated to the last complete line (fsynced)
 * so the next append starts on a fresh line.
 *
 * @returns the complete records, in order.
 * @throws {LoopError} `STATE_CORRUPT` naming the path and line when a complete line is not a valid
 *   record (the file is left as it is).
 */
export async function readJournal(path: string): Promise<JournalRecord[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new LoopError(
      'STATE_CORRUPT',
      `[loop] [step-machine] journal ${path} cannot be read: ${(error as Error).message}`,
      { cause: error, details: { path } },
    );
  }
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) {
    await truncate(path, Buffer.byteLength(text.slice(0, end)));
    await syncFile(path);
  }
  const lines = text.slice(0, end).split('\n').slice(0, -1);
  return lines.map((line, i) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw corrupt(path, i + 1, 'not JSON', error);
    }
    const result = journalRecordSchema.safeParse(parsed);
    if (!result.success)
      throw corrupt(
        path,
        i + 1,
        result.error.issues.map((x) => `${x.path.join('.') || '(root)'}: ${x.message}`).join('; '),
        result.error,
      );
    return result.data;
  });
}

function corrupt(path: string, line: number, why: string, cause: unknown): LoopError {
  return new LoopError(
    'STATE_CORRUPT',
    `[loop] [step-machine] journal ${path} line ${line} is not a journal ` +
      `record (${why}); restore the file or remove the line`,
    { cause, details: { path, line } },
  );
}

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Appends one record as a line and fsyncs the file (and, when the file is new, its directory)
 * before returning, so a record is durable once this resolves.
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path.
 */
export async function appendJournal(path: string, record: JournalRecord): Promise<void> {
  const line = `${JSON.stringify(journalRecordSchema.parse(record))}\n`;
  try {
    await appendDurable(path, line);
  } catch (error) {
    throw new LoopError(
      'STATE_WRITE_FAILED',
      `[loop] [step-machine] could not append to ` +
        `journal ${path}: ${(error as Error).message}; check the disk and ` +
        `permissions`,
      { cause: error, details: { path } },
    );
  }
}
