// The path scan (rollback-git's fast path with explicit `paths`): commit against working tree at
// and under the given paths only, without the index or a walk of the rest of the repository.
import { inChunks } from './chunks.js';
import { gitMode, lstatOrUndefined, readWorktreeBlob } from './fs-ops.js';
import { PathSet } from './path-set.js';
import { absolute } from './paths.js';
import type { Repo } from './repo.js';
import { collectBlobs, normalizeMode, readTreeEntries, sameBlob, treeOfCommit, type BlobEntry } from './tree-diff.js';
import { isIgnored } from './worktree-walk.js';
import type { WorktreeChange } from './worktree-scan.js';

/** The blobs of commit tree `rootTree` at or under `base` (a file or a directory). */
async function headBlobsUnder(repo: Repo, rootTree: string, base: string, out: Map<string, BlobEntry>): Promise<void> {
  if (base === '.') return collectBlobs(repo, rootTree, '', out);
  const parts = base.split('/');
  let tree = rootTree;
  for (const [i, part] of parts.entries()) {
    const entry = (await readTreeEntries(repo, tree)).get(part);
    if (entry === undefined) return;
    const last = i === parts.length - 1;
    if (entry.type === 'tree') {
      if (last) return collectBlobs(repo, entry.oid, base, out);
      tree = entry.oid;
    } else {
      if (last && entry.type === 'blob') {
        out.set(base, { oid: entry.oid, mode: normalizeMode(parseInt(entry.mode, 8)) });
      }
      return;
    }
  }
}

/** The files (and links) at or under `base` in the working tree, skipping ignored untracked ones. */
async function worktreeFilesUnder(repo: Repo, base: string, tracked: PathSet, out: Map<string, number>): Promise<void> {
  const visit = async (path: string): Promise<void> => {
    if (path === '.git' || path.endsWith('/.git')) return;
    const stats = await lstatOrUndefined(repo, path);
    if (stats === undefined) return;
    if (stats.isDirectory()) {
      if (path !== '.' && !tracked.worthWalking(path) && (await isIgnored(repo, path))) return;
      const names = await repo.fs.promises.readdir(absolute(repo.dir, path));
      await Promise.all(names.map((name) => visit(path === '.' ? String(name) : `${path}/${String(name)}`)));
      return;
    }
    const mode = gitMode(stats);
    if (mode === undefined) return;
    if (!tracked.has(path) && (await isIgnored(repo, path))) return;
    out.set(path, mode);
  };
  await visit(base);
}

/**
 * Path scan: compares commit `headOid` with the working tree at and under `bases` only, reading
 * the commit's trees on the way to them and hashing the working-tree files there (no index, no
 * walk of the rest of the repository).
 */
export async function scanPaths(repo: Repo, headOid: string, bases: readonly string[]): Promise<WorktreeChange[]> {
  const rootTree = await treeOfCommit(repo, headOid);
  const head = new Map<string, BlobEntry>();
  for (const base of bases) await headBlobsUnder(repo, rootTree, base, head);
  const tracked = new PathSet(head.keys());
  const work = new Map<string, number>();
  for (const base of bases) await worktreeFilesUnder(repo, base, tracked, work);

  const paths = [...new Set([...head.keys(), ...work.keys()])];
  const changes: WorktreeChange[] = [];
  await inChunks(paths, async (path) => {
    const inHead = head.get(path);
    const actual = work.has(path) ? await readWorktreeBlob(repo, path) : undefined;
    const workdir = actual === undefined || actual === 'other' ? undefined : actual;
    if (!sameBlob(inHead, workdir)) changes.push({ path, head: inHead, workdir, indexed: inHead !== undefined });
  });
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
