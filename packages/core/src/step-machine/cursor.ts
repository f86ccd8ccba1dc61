import { z } from 'zod';
import { LoopError } from '../contracts/errors.js';
import { readJson, writeJsonAtomic } from '../files/state-file.js';

/**
 * The persisted cursor of a step machine (`cursor.json`): which run, which visit, which step is
 * next, and the data the steps carry. Written whole with core's `writeJsonAtomic` at every
 * transition: the cursor write is the commit point of a step.
 */
export const stepCursorSchema = z.object({
  /** The file format version: 1. */
  version: z.literal(1),
  /** The machine's name; a cursor of another machine is refused. */
  machine: z.string().min(1),
  /** The run, from 1; a new run starts when the previous one finished. */
  run: z.number().int().positive(),
  /** Transitions made in this run so far (from 0); names the current visit in journal keys. */
  visit: z.number().int().nonnegative(),
  /** The step to run next, or null when the run finished. */
  step: z.string().min(1).nullable(),
  /** The data the steps carry (JSON), as the last transition left it. */
  data: z.unknown(),
});

/** The contents of cursor.json (see {@link stepCursorSchema}). */
export interface StepCursor<D> {
  /** Always 1. */
  readonly version: 1;
  /** The machine's name. */
  readonly machine: string;
  /** The run, from 1. */
  readonly run: number;
  /** Transitions made in this run so far. */
  readonly visit: number;
  /** The next step, or null when the run finished. */
  readonly step: string | null;
  /** The carried data. */
  readonly data: D;
}

/**
 * Reads and validates a cursor. `dataSchema` validates `data` when given.
 *
 * @returns the cursor, or `undefined` when the file does not exist.
 * @throws {LoopError} `STATE_CORRUPT` naming the path and field when it is not a cursor of
 *   `machine`, or its data does not match `dataSchema`.
 */
export async function readStepCursor<D>(
  path: string,
  machine: string,
  dataSchema?: z.ZodType<D>,
): Promise<StepCursor<D> | undefined> {
  const raw = await readJson(path);
  if (raw === undefined) return undefined;
  const result = stepCursorSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.map(String).join('.') || '(root)';
    throw new LoopError(
      'STATE_CORRUPT',
      `[loop] [step-machine] cursor ${path}: field ${field}: ${issue?.message ?? 'invalid'}; restore the file`,
      { cause: result.error, details: { path, field } },
    );
  }
  const cursor = result.data;
  if (cursor.machine !== machine) {
    throw new LoopError(
      'STATE_CORRUPT',
      `[loop] [step-machine] cursor ${path} belongs to machine ` +
        `"${cursor.machine}", not "${machine}"; give each machine its own ` +
        `directory`,
      { details: { path, field: 'machine' } },
    );
  }
  let data = cursor.data as D;
  if (dataSchema !== undefined) {
    const parsed = dataSchema.safeParse(cursor.data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = ['data', ...(issue?.path.map(String) ?? [])].join('.');
      throw new LoopError(
        'STATE_CORRUPT',
        `[loop] [step-machine] cursor ${path}: field ${field}: ${issue?.message ?? 'invalid'}; restore the file`,
        { cause: parsed.error, details: { path, field } },
      );
    }
    data = parsed.data;
  }
  return { version: 1, machine, run: cursor.run, visit: cursor.visit, step: cursor.step, data };
}

/**
 * Writes a cursor atomically (temp + fsync + rename + directory fsync, re-read).
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path; the previous cursor is intact.
 */
export async function writeStepCursor<D>(path: string, cursor: StepCursor<D>): Promise<void> {
  await writeJsonAtomic(path, cursor);
}
