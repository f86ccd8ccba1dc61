import nodeFs from 'node:fs';
import git, { type FsClient } from 'isomorphic-git';
import type { GitFs } from './git-fs.js';
import { DISCARDED_NAMESPACE } from './internal/discarded-refs.js';
import { toLoopError } from './internal/errors.js';
import { resolveGitDirs } from './internal/git-dirs.js';

/** A discarded candidate kept reachable under `refs/loop/discarded/`. */
export interface DiscardedRef {
  /** The full ref, e.g. `refs/loop/discarded/12-1`. */
  readonly ref: string;
  /** The name under the namespace, e.g. `12-1`, `recovered`, `before-restore-best`. */
  readonly name: string;
  /** The commit (40 hex). */
  readonly oid: string;
  /** The iteration for `<iteration>` and `<iteration>-<n>` names, else `undefined`. */
  readonly iteration: number | undefined;
  /** `n` of a `-<n>` suffix (the n-th other candidate saved under that name); 0 without suffix. */
  readonly attempt: number;
}

/**
 * Lists the discarded candidates `revert` saved in the repository at `dir`, sorted by iteration
 * then attempt (names that are not iterations last). Read `git diff <oid>^ <oid>` for what a
 * failed experiment changed.
 *
 * @param dir - Absolute working-tree root.
 * @param fs - `node:fs` or a memfs instance. @default node:fs
 * @throws {LoopError} `NOT_A_REPOSITORY` when the refs cannot be read.
 */
export async function readDiscardedRefs(dir: string, fs: GitFs = nodeFs): Promise<DiscardedRef[]> {
  const gitFs = fs as unknown as FsClient;
  // Refs are shared: a linked worktree's or a submodule's `.git` file names the repository.
  const gitdir = resolveGitDirs(fs, dir.length > 1 ? dir.replace(/\/+$/, '') : dir).common;
  try {
    const names = await git.listRefs({ fs: gitFs, dir, gitdir, filepath: DISCARDED_NAMESPACE });
    const refs = await Promise.all(
      names.map(async (name): Promise<DiscardedRef> => {
        const ref = `${DISCARDED_NAMESPACE}/${name}`;
        const oid = await git.resolveRef({ fs: gitFs, dir, gitdir, ref });
        const [, base = name, suffix] = /^(.*?)(?:-(\d+))?$/.exec(name) ?? [];
        const iteration = /^\d+$/.test(base) ? Number(base) : undefined;
        return { ref, name, oid, iteration, attempt: Number(suffix ?? 0) };
      }),
    );
    const key = (r: DiscardedRef): [number, string, number] => [
      r.iteration ?? Number.MAX_SAFE_INTEGER,
      r.name.replace(/-\d+$/, ''),
      r.attempt,
    ];
    return refs.sort((a, b) => {
      const [ai, an, aa] = key(a);
      const [bi, bn, ba] = key(b);
      return ai - bi || (an < bn ? -1 : an > bn ? 1 : 0) || aa - ba;
    });
  } catch (error) {
    throw toLoopError(
      error,
      'NOT_A_REPOSITORY',
      `reading discarded refs in ${dir}`,
      'check that dir is a git working tree',
    );
  }
}
