import type { TreeEntry } from 'isomorphic-git';
import { writeTreeObject } from './object-store.js';
import type { Repo } from './repo.js';
import { readTreeEntries, rememberTree, type BlobEntry } from './tree-diff.js';

/** A path's new blob, or `undefined` to delete it. */
export interface FileUpdate {
  /** Relative path, `/`-separated. */
  readonly path: string;
  /** The new blob (already in the object store), or `undefined` to delete. */
  readonly blob: BlobEntry | undefined;
}

interface Node {
  readonly files: Map<string, BlobEntry | undefined>;
  readonly dirs: Map<string, Node>;
}

const newNode = (): Node => ({ files: new Map(), dirs: new Map() });

async function rebuild(repo: Repo, treeOid: string | undefined, node: Node): Promise<string | undefined> {
  const entries = treeOid === undefined ? new Map<string, TreeEntry>() : new Map(await readTreeEntries(repo, treeOid));
  // Deletions first, so a file replaced by a directory (or the reverse) ends as the new kind.
  for (const [name, blob] of node.files) if (blob === undefined) entries.delete(name);
  await Promise.all(
    [...node.dirs].map(async ([name, child]) => {
      const existing = entries.get(name);
      const subtree = await rebuild(repo, existing?.type === 'tree' ? existing.oid : undefined, child);
      if (subtree === undefined) {
        if (existing?.type === 'tree') entries.delete(name);
      } else {
        entries.set(name, { mode: '040000', path: name, oid: subtree, type: 'tree' });
      }
    }),
  );
  for (const [name, blob] of node.files) {
    if (blob !== undefined) entries.set(name, { mode: blob.mode.toString(8), path: name, oid: blob.oid, type: 'blob' });
  }
  if (entries.size === 0) return undefined;
  const oid = await writeTreeObject(repo, [...entries.values()]);
  rememberTree(repo, oid, entries.values());
  return oid;
}

/**
 * Writes the tree of `baseTreeOid` with `updates` applied and returns its oid. Only the trees on
 * the way to an updated path are read and written, so the cost grows with the change, not with the
 * repository (isomorphic-git's `commit` rebuilds every tree of the index). Trees are written by
 * `writeTreeObject` (git's entry order, loose objects written directly) and cached as written.
 */
export async function buildTree(repo: Repo, baseTreeOid: string, updates: readonly FileUpdate[]): Promise<string> {
  if (updates.length === 0) return baseTreeOid;
  const root = newNode();
  for (const update of updates) {
    const parts = update.path.split('/');
    const name = parts.pop() as string;
    let node = root;
    for (const part of parts) {
      let child = node.dirs.get(part);
      if (child === undefined) {
        child = newNode();
        node.dirs.set(part, child);
      }
      node = child;
    }
    node.files.set(name, update.blob);
  }
  return (await rebuild(repo, baseTreeOid, root)) ?? (await writeTreeObject(repo, []));
}
