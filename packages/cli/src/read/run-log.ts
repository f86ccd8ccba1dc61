import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_FILES } from '@loop/auto-iterate';
import { keptLogName, listKeptLogs, type KeptLog } from '@loop/core/harness';
import { UsageError } from '../usage-error.js';

/**
 * The kept run logs of a workspace (`.loop/logs/<n>.log`, issue 32 item 16), oldest first; `[]` when there are none.
 */
export function keptRunLogs(dir: string): Promise<KeptLog[]> {
  return listKeptLogs(join(dir, RUN_FILES.logs));
}

/** One iteration's kept run log: its path (absolute) and text. */
export interface IterationLog {
  readonly iteration: number;
  readonly path: string;
  /** The log, or its last `tailBytes` (from a line start) when it is longer. */
  readonly text: string;
  /** True when `text` is only the log's end. */
  readonly truncated: boolean;
}

/** A file's text, or its last `tailBytes` starting at a line when it is longer; `undefined` when it does not exist. */
async function readEnd(path: string, tailBytes: number): Promise<{ text: string; truncated: boolean } | undefined> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - tailBytes);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const text = buffer.toString('utf8');
    return start > 0 ? { text: text.slice(text.indexOf('\n') + 1), truncated: true } : { text, truncated: false };
  } finally {
    await handle.close();
  }
}

/**
 * The log of iteration `iteration`'s run in workspace `dir` (`.loop/logs/<n>.log`; 0 is the
 * baseline), as `loop log --output <n>` prints it and the dashboard's log button shows it (its
 * last `tailBytes`, default all).
 *
 * @throws {UsageError} when that log is not kept (the message names the folder and the
 *   iterations it holds: only the newest `keepLogs` are kept, and runs before the feature kept none).
 */
export async function readIterationLog(
  dir: string,
  iteration: number,
  tailBytes = Number.MAX_SAFE_INTEGER,
): Promise<IterationLog> {
  const folder = join(dir, RUN_FILES.logs);
  const path = join(folder, keptLogName(iteration));
  const end = await readEnd(path, tailBytes);
  if (end !== undefined) return { iteration, path, ...end };
  const kept = (await listKeptLogs(folder)).filter((l) => l.repeat === 0);
  const held =
    kept.length === 0
      ? 'it holds none'
      : `it holds iterations ${kept[0]!.iteration} to ${kept.at(-1)!.iteration} (the newest keepLogs logs are kept)`;
  throw new UsageError(`no log of iteration ${iteration} in ${folder}: ${held}`);
}
