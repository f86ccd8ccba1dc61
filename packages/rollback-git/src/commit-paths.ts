import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { headSha } from './commit-ops.js';
import { gitLines, runGit, type GitCliContext } from './git-cli.js';

/** The result of {@link commitPaths}. */
export interface CommitPathsReport {
  /** The new commit's sha, or `null` when the named paths had nothing new to commit (no commit was made). */
  readonly commit: string | null;
  /**
   * The paths (relative to `ctx.cwd`, `/`-separated) that were staged: named, inside the working tree, and not ignored
   * untracked files.
   */
  readonly staged: readonly string[];
  /**
   * Named paths left out: outside the working tree, ignored by it (untracked and matching `.gitignore` /
   * `info/exclude`), or neither present nor tracked.
   */
  readonly skipped: readonly string[];
}

function inside(root: string, path: string): string | undefined {
  const rel = relative(root, resolve(root, path));
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

/**
 * Commits exactly the named files with `message`, nothing else the index or the working tree holds:
 * stages them (`git add --`, which also records a deletion of a tracked file), then commits only
 * those paths (`git commit --only -- <paths>`, hooks not run). A path outside the working tree, an
 * untracked path the repository ignores (seed 004: artifacts under projects/ are ignored by the app
 * repository) or one that neither exists nor is tracked is skipped. Nothing new to commit makes no
 * commit, so calling it again after it succeeded is harmless (a step re-run after a kill commits
 * once).
 *
 * @param paths absolute, or relative to `ctx.cwd`.
 * @throws {LoopError} `NOT_A_REPOSITORY` when a git command fails (its stderr is in the message).
 */
export async function commitPaths(
  ctx: GitCliContext,
  paths: readonly string[],
  message: string,
): Promise<CommitPathsReport> {
  const skipped: string[] = [];
  const named: string[] = [];
  for (const path of paths) {
    const rel = inside(ctx.cwd, path);
    if (rel === undefined) skipped.push(path);
    else if (!named.includes(rel)) named.push(rel);
  }
  if (named.length === 0) return { commit: null, staged: [], skipped };
  const ignored = new Set(
    gitLines(await runGit(ctx, ['ls-files', '--others', '--ignored', '--exclude-standard', '--', ...named])),
  );
  const tracked = new Set(gitLines(await runGit(ctx, ['ls-files', '--', ...named])));
  const staged: string[] = [];
  for (const rel of named) {
    if (ignored.has(rel) || (!tracked.has(rel) && !existsSync(resolve(ctx.cwd, rel)))) skipped.push(rel);
    else staged.push(rel);
  }
  if (staged.length === 0) return { commit: null, staged, skipped };
  await runGit(ctx, ['add', '--', ...staged]);
  if ((await runGit(ctx, ['diff', '--cached', '--name-only', '--', ...staged])).trim() === '')
    return { commit: null, staged, skipped };
  await runGit(ctx, ['commit', '-q', '--no-verify', '--only', '-m', message, '--', ...staged]);
  return { commit: await headSha(ctx), staged, skipped };
}
