import { dirname, join } from 'node:path';
import git from 'isomorphic-git';
import type { LoopErrorCode } from '@loop/core';
import { foreignCode, rollbackError } from './errors.js';
import { lstatOrUndefined } from './fs-ops.js';
import { gitArgs, type Repo } from './repo.js';

/** The nearest folder above the repository's `dir` holding a `.git`, or `undefined`. */
async function enclosingRepository(repo: Repo): Promise<string | undefined> {
  for (let d = dirname(repo.dir); ; d = dirname(d)) {
    try {
      await repo.fs.promises.lstat(join(d, '.git'));
      return d;
    } catch {
      if (dirname(d) === d) return undefined;
    }
  }
}

/**
 * The HEAD commit of the repository whose working-tree root is `repo.dir`.
 *
 * @throws {LoopError} `NOT_A_REPOSITORY` when `dir` has no `.git` (naming the enclosing repository
 *   when `dir` is inside one), its `.git` file (a submodule or linked worktree) names no
 *   repository, or the repository has no commit yet.
 */
export async function headOfRepositoryRoot(repo: Repo): Promise<string> {
  const args = () => gitArgs(repo);
  const dotGit = await lstatOrUndefined(repo, '.git');
  if (dotGit !== undefined && dotGit.isFile()) {
    // A `.git` file (a submodule, a linked worktree): it must name a repository that exists.
    const named = repo.dirs.worktree;
    let exists = true;
    try {
      await repo.fs.promises.lstat(`${named}/HEAD`);
    } catch {
      exists = false;
    }
    if (!exists || named === `${repo.dir}/.git`) {
      const why = named === `${repo.dir}/.git` ? 'no "gitdir: <path>" line' : `${named} has no HEAD`;
      throw rollbackError(
        'NOT_A_REPOSITORY',
        `${repo.dir}/.git is a file that names no repository (${why}); if this is a worktree whose repository moved, ` +
          'run git worktree repair in the main repository, or for a submodule git submodule update --init',
        { details: { dir: repo.dir, gitdir: named } },
      );
    }
  }
  if (dotGit === undefined || (!dotGit.isDirectory() && !dotGit.isFile())) {
    const repository = await enclosingRepository(repo);
    throw rollbackError(
      'NOT_A_REPOSITORY',
      repository === undefined
        ? `no git repository at ${repo.dir} (no .git directory); run git init and ` +
            `commit there, or set dir to the working-tree root`
        : `${repo.dir} is inside the git repository ${repository}, not its root; ` +
            `set dir to ${repository} (do not run git init here: that would make a ` +
            `nested repository)`,
      { details: { dir: repo.dir, ...(repository === undefined ? {} : { repository }) } },
    );
  }
  try {
    return await git.resolveRef({ ...args(), ref: 'HEAD' });
  } catch (error) {
    throw rollbackError(
      'NOT_A_REPOSITORY',
      `the repository at ${repo.dir} has no commit yet; make an initial commit first`,
      {
        cause: error,
        details: { dir: repo.dir },
      },
    );
  }
}

/** True when `ref` resolves; other errors than "not found" propagate. */
export async function refExists(repo: Repo, ref: string): Promise<boolean> {
  try {
    await git.resolveRef({ ...gitArgs(repo), ref });
    return true;
  } catch (error) {
    if (foreignCode(error) === 'NotFoundError') return false;
    throw error;
  }
}

/**
 * The full oid of commit `id` (4 to 40 hex characters), checked to be a commit.
 *
 * @throws {LoopError} `code` when `id` is not hex, is ambiguous, or is not a commit (the message
 *   says to check results.tsv against `git log <branch>`).
 */
export async function expandCommitId(
  repo: Repo,
  id: string,
  code: LoopErrorCode,
  what: string,
  branch: string,
): Promise<string> {
  const args = () => gitArgs(repo);
  if (!/^[0-9a-f]{4,40}$/i.test(id)) {
    throw rollbackError(code, `${what} ${JSON.stringify(id)} is not a commit id (4 to 40 hex characters)`, {
      details: { id },
    });
  }
  try {
    const oid = await git.expandOid({ ...args(), oid: id.toLowerCase() });
    await git.readCommit({ ...args(), oid });
    return oid;
  } catch (error) {
    const reason = foreignCode(error) === 'AmbiguousError' ? 'is ambiguous' : 'is not a commit in this repository';
    throw rollbackError(code, `${what} ${id} ${reason}; check the id in results.tsv against git log ${branch}`, {
      cause: error,
      details: { id },
    });
  }
}
