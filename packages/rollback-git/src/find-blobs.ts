import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { runGitBuffer, type GitCliContext } from './git-cli.js';

/** Git's blob id of `bytes` (SHA-1 of `blob <size>\0<bytes>`; a SHA-1 repository). */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/**
 * Which of `files` (absolute paths, read here) have their exact bytes stored as an object in the
 * repository of `ctx.cwd`: committed on any branch, staged in the index once, stashed, or left
 * unreachable (until git prunes it). One `git cat-file --batch-check` for all of them. A sealed
 * holdout refuses to start when one is (issue 33: `git cat-file` over every object would read it).
 *
 * @returns the files whose blob exists, in the given order.
 * @throws {LoopError} `NOT_A_REPOSITORY` when git fails there.
 */
export async function findBlobs(ctx: GitCliContext, files: readonly string[]): Promise<string[]> {
  if (files.length === 0) return [];
  const ids = await Promise.all(files.map(async (f) => gitBlobId(await readFile(f))));
  const out = (
    await runGitBuffer(ctx, ['cat-file', '--batch-check'], { input: ids.map((id) => `${id}\n`).join('') })
  ).toString('utf8');
  const present = new Set(
    out
      .split('\n')
      .filter((l) => / blob \d+$/.test(l))
      .map((l) => l.split(' ')[0]),
  );
  return files.filter((_, i) => present.has(ids[i]!));
}
