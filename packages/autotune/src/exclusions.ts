import { readText } from './internal/read-text.js';
import { writeTextAtomic } from '@loop/core/files';

/**
 * Reads the exclusions file (seed 004 `eval/config/cannot_handle_group.txt`): one task id per
 * line; blank lines and lines starting with `#` are ignored. A missing file is an empty list.
 */
export async function readExclusions(path: string): Promise<string[]> {
  const text = await readText(path);
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
}

/**
 * Appends the ids not already listed to the exclusions file, keeping every existing line, with one
 * atomic write (seed 004: "Add genuinely out-of-reach tasks to eval/config/cannot_handle_group.txt").
 *
 * @returns the ids actually added.
 * @throws {LoopError} `STATE_WRITE_FAILED` naming the path; the previous file is intact.
 */
export async function appendExclusions(path: string, ids: readonly string[]): Promise<string[]> {
  const existing = await readExclusions(path);
  const added = [...new Set(ids)].filter((id) => !existing.includes(id));
  if (added.length === 0) return [];
  let text = await readText(path);
  if (text.length > 0 && !text.endsWith('\n')) text += '\n';
  await writeTextAtomic(path, `${text}${added.join('\n')}\n`);
  return added;
}
