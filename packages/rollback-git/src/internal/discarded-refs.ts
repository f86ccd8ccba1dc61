import git from 'isomorphic-git';
import { readCommitObject } from './object-store.js';
import { readRefExact, resolveRefFast } from './ref-read.js';
import { gitArgs, type Repo } from './repo.js';
import { RESCUE_SUBJECT } from './rescue-commit.js';

/** Where discarded candidates are kept reachable. */
export const DISCARDED_NAMESPACE = 'refs/loop/discarded';

/**
 * Points `refs/loop/discarded/<name>` at `oid`, or `<name>-1`, `<name>-2`, ... when that name is
 * taken by another commit. Idempotent: when one of those refs already points at `oid` (or at a
 * rescue commit on top of it, see `rescueWorktree`), nothing is written. Only the names tried are
 * looked up (loose file, then packed-refs), so the cost does not grow with the refs a run saved.
 *
 * @returns the full ref name.
 */
export async function saveDiscarded(repo: Repo, name: string, oid: string): Promise<string> {
  for (let n = 0; ; n += 1) {
    const ref = `${DISCARDED_NAMESPACE}/${n === 0 ? name : `${name}-${n}`}`;
    const held = await readRefExact(repo, ref);
    if (held === undefined) {
      await git.writeRef({ ...gitArgs(repo), ref, value: oid });
      return ref;
    }
    const existing = /^[0-9a-f]{40}$/.test(held) ? held : await resolveRefFast(repo, ref);
    if (existing === oid) return ref;
    const commit = await readCommitObject(repo, existing);
    if (commit.parent[0] === oid && commit.message.startsWith(RESCUE_SUBJECT)) return ref;
  }
}
