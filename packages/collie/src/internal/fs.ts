import { randomBytes } from 'node:crypto';
import { access, appendFile, copyFile, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

export async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function fsyncAndRename(tmp: string, path: string): Promise<void> {
  const h = await open(tmp, 'r+');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
  await rename(tmp, path);
  const d = await open(dirname(path), 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}

const tmpOf = (path: string) => `${path}.${randomBytes(4).toString('hex')}.tmp`;

/** Atomic text writes are core's (temp file, fsync, rename, directory fsync; STATE_WRITE_FAILED). */
export { writeTextAtomic } from '@loop/core';

/** Copies `from` to `to` atomically (copy to a temp file, then rename): `to` is either absent or complete. */
export async function copyAtomic(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  const tmp = tmpOf(to);
  await copyFile(from, tmp);
  await fsyncAndRename(tmp, to);
}

/** Appends a line block, creating the directory. */
export async function appendText(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, text);
}

/** The marker that ends an entry appended by {@link appendOnce} (an HTML comment: hidden when rendered). */
export const onceMarker = (key: string): string => `<!-- collie:${key} -->`;

/**
 * Appends `text` followed by its marker line unless the file already holds the marker: a step
 * killed after its append and redone does not append the entry twice (one write call, so the
 * entry and its marker land together).
 */
export async function appendOnce(path: string, key: string, text: string): Promise<void> {
  const marker = onceMarker(key);
  if (((await readText(path)) ?? '').includes(marker)) return;
  await appendText(path, `${text.replace(/\n*$/, '\n')}${marker}\n`);
}

export async function removeFile(path: string): Promise<void> {
  await rm(path, { force: true });
}
