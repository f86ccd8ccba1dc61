import { readFile } from 'node:fs/promises';

/** A UTF-8 file's text, or `undefined` when it does not exist (other errors are thrown as they are). */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
