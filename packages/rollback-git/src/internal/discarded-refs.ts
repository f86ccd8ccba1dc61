import git from 'isomorphic-git';
import { gitArgs, type Repo } from './repo.js';
import { RESCUE_SUBJECT } from './rescue-commit.js';

/** Where discarded candidates are kept reachable. */
export const DISCARDED_NAMESPACE = 'refs/loop/discarded';

/**
 * Points `refs/loop/discarded/<name>` at `oid`, or `<name>-1`, `<name>-2`, ... when that name is
 * taken by another commit. Idempotent: when one of those refs already points at `oid` (or at a
 * rescue commit on top of it, see `rescueWorktree`), nothing is written.
 *
 * @returns the full ref name.
 */
export async function saveDiscarded(repo: Repo, name: string, oid: string): Promise<string> {
  const args = gitArgs(repo);
  const taken = new Set(await git.listRefs({ fs: args.fs, dir: args.dir, gitdir: args.gitdir, filepath: DISCARDED_NAMESPACE }));
  for (let n = 0; ; n += 1) {
    const candidate = n === 0 ? name : `${name}-${n}`;
    const ref = `${DISCARDED_NAMESPACE}/${candidate}`;
    if (!taken.has(candidate)) {
      await git.writeRef({ fs: args.fs, dir: args.dir, gitdir: args.gitdir, ref, value: oid });
      return ref;
    }
    const existing = await git.resolveRef({ fs: args.fs, dir: args.dir, gitdir: args.gitdir, ref });
    if (existing === oid) return ref;
    const { commit } = await git.readCommit({ ...args, oid: existing });
    if (commit.parent[0] === oid && commit.message.startsWith(RESCUE_SUBJECT)) return ref;
  }
}
