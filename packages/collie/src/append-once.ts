import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readText } from './internal/read-text.js';

/** Appends a block of lines to an append-only log (user-log.md, a trigger log), creating its directory. */
export async function appendText(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, text);
}

/** The marker that ends an entry appended by {@link appendOnce} (an HTML comment: hidden when rendered). */
export const onceMarker = (key: string): string => `<!-- collie:${key} -->`;

/**
 * Appends `text` followed by its marker line unless the file already holds the marker: a step
 * killed after its append and redone does not append the entry twice (one write call, so the
 * entry and its marker land together). For user-log.md; whole-file rewrites go through core's
 * `writeTextAtomic`.
 */
export async function appendOnce(path: string, key: string, text: string): Promise<void> {
  const marker = onceMarker(key);
  if (((await readText(path)) ?? '').includes(marker)) return;
  await appendText(path, `${text.replace(/\n*$/, '\n')}${marker}\n`);
}
