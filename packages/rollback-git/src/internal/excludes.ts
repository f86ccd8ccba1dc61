import { foreignCode } from './errors.js';
import type { Repo } from './repo.js';

const HEADER = '# added by loop (@loop/rollback-git): run outputs that must survive a revert';

/**
 * Appends the patterns missing from `.git/info/exclude` (one per line, under a one-line header),
 * leaving the user's `.gitignore` alone. Idempotent: a pattern already present is not repeated.
 *
 * @returns the patterns it added.
 */
export async function ensureExcludes(repo: Repo, patterns: readonly string[]): Promise<string[]> {
  const path = `${repo.gitdir}/info/exclude`;
  let text = '';
  try {
    const content = await repo.fs.promises.readFile(path);
    text = typeof content === 'string' ? content : new TextDecoder().decode(content);
  } catch (error) {
    if (foreignCode(error) !== 'ENOENT') throw error;
  }
  const present = new Set(text.split(/\r?\n/).map((line) => line.trim()));
  const missing = [...new Set(patterns)].filter((pattern) => !present.has(pattern));
  if (missing.length === 0) return [];
  let addition = text !== '' && !text.endsWith('\n') ? '\n' : '';
  if (!present.has(HEADER)) addition += `${HEADER}\n`;
  addition += `${missing.join('\n')}\n`;
  await repo.fs.promises.mkdir(`${repo.gitdir}/info`, { recursive: true });
  await repo.fs.promises.writeFile(path, new TextEncoder().encode(text + addition));
  return missing;
}
