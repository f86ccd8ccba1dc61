import { open } from 'node:fs/promises';

/** The last `maxBytes` bytes of the file at `path` (utf8) and whether it was longer; `''` when it is missing. */
export async function readLogEnd(path: string, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return { text: '', truncated: false };
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return { text: buffer.toString('utf8'), truncated: size > length };
  } finally {
    await handle.close();
  }
}
