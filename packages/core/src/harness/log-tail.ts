import { readFile } from 'node:fs/promises';

/**
 * The last `lines` lines of a log file (seed 003: `tail -50 run.log` to diagnose a crash).
 * Returns `''` when the file does not exist.
 */
export async function readLogTail(path: string, lines = 50): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return '';
  }
  const all = text.replace(/\n$/, '').split('\n');
  return all.slice(-lines).join('\n');
}
