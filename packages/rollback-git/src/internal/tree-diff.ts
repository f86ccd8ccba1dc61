import type { TreeEntry, WalkerEntry } from 'isomorphic-git';
import { compareNames } from './object-format.js';
import { readCommitObject, readTreeObject } from './object-store.js';
import type { Repo } from './repo.js';

/** A blob in a tree or the index: its oid and git mode. */
export interface BlobEntry {
  /** The blob oid. */
  readonly oid: string;
  /** The git mode (0o100644, 0o100755, 0o120000). */
  readonly mode: number;
}

/** One path whose blob differs between two trees (absent on a side: `undefined`). */
export interface TreeChange {
  /** Relative path, `/`-separated. */
  readonly path: string;
  /** The blob in the first tree. */
  readonly from: BlobEntry | undefined;
  /** The blob in the second tree. */
  readonly to: BlobEntry | undefined;
}

/** Git's normalised mode: any regular file is 0o100644 or 0o100755. */
export function normalizeMode(mode: number): number {
  if ((mode & 0o170000) === 0o100000) return (mode & 0o111) !== 0 ? 0o100755 : 0o100644;
  return mode;
}

/** The blob at a walker entry, or `undefined` for a tree, a submodule or no entry. */
export async function blobOf(entry: WalkerEntry | null): Promise<BlobEntry | undefined> {
  if (entry === null || (await entry.type()) !== 'blob') return undefined;
  return { oid: await entry.oid(), mode: normalizeMode(await entry.mode()) };
}

const TREE_CACHE_LIMIT = 20_000;

/** The entries of a tree, keyed by name (cached by oid: do not mutate the map). */
export async function readTreeEntries(repo: Repo, oid: string): Promise<Map<string, TreeEntry>> {
  const cached = repo.trees.get(oid);
  if (cached !== undefined) return cached;
  const tree = await readTreeObject(repo, oid);
  const entries = new Map(tree.map((entry) => [entry.path, entry]));
  if (repo.trees.size >= TREE_CACHE_LIMIT) repo.trees.clear();
  repo.trees.set(oid, entries);
  return entries;
}

/**
 * Caches the entries of tree `oid` just written (so the next diff against it reads nothing),
 * sorted by name as {@link readTreeEntries} returns them.
 */
export function rememberTree(repo: Repo, oid: string, entries: Iterable<TreeEntry>): void {
  if (repo.trees.has(oid)) return;
  const sorted = [...entries].sort((a, b) => compareNames(a.path, b.path));
  if (repo.trees.size >= TREE_CACHE_LIMIT) repo.trees.clear();
  repo.trees.set(oid, new Map(sorted.map((entry) => [entry.path, entry])));
}

/** The tree oid of a commit. */
export async function treeOfCommit(repo: Repo, commitOid: string): Promise<string> {
  return (await readCommitObject(repo, commitOid)).tree;
}

function blobEntry(entry: TreeEntry | undefined): BlobEntry | undefined {
  return entry?.type === 'blob' ? { oid: entry.oid, mode: normalizeMode(parseInt(entry.mode, 8)) } : undefined;
}

function join(prefix: string, name: string): string {
  return prefix === '' ? name : `${prefix}/${name}`;
}

/** Adds every blob under tree `treeOid` to `out`, keyed by path (prefixed with `prefix`). */
export async function collectBlobs(
  repo: Repo,
  treeOid: string,
  prefix: string,
  out: Map<string, BlobEntry>,
): Promise<void> {
  const entries = await readTreeEntries(repo, treeOid);
  await Promise.all(
    [...entries.values()].map(async (entry) => {
      const path = join(prefix, entry.path);
      if (entry.type === 'tree') await collectBlobs(repo, entry.oid, path, out);
      else if (entry.type === 'blob') out.set(path, blobEntry(entry) as BlobEntry);
    }),
  );
}

async function diffTreeOids(
  repo: Repo,
  fromTree: string | undefined,
  toTree: string | undefined,
  prefix: string,
  out: TreeChange[],
): Promise<void> {
  if (fromTree === toTree) return;
  const [left, right] = await Promise.all([
    fromTree === undefined ? new Map<string, TreeEntry>() : readTreeEntries(repo, fromTree),
    toTree === undefined ? new Map<string, TreeEntry>() : readTreeEntries(repo, toTree),
  ]);
  const names = new Set([...left.keys(), ...right.keys()]);
  await Promise.all(
    [...names].map(async (name) => {
      const a = left.get(name);
      const b = right.get(name);
      if (a !== undefined && b !== undefined && a.oid === b.oid && a.mode === b.mode) return; // identical: not read
      const path = join(prefix, name);
      const from = blobEntry(a);
      const to = blobEntry(b);
      if (from !== undefined || to !== undefined) {
        if (from?.oid !== to?.oid || from?.mode !== to?.mode) out.push({ path, from, to });
      }
      const subFrom = a?.type === 'tree' ? a.oid : undefined;
      const subTo = b?.type === 'tree' ? b.oid : undefined;
      if (subFrom !== undefined || subTo !== undefined) await diffTreeOids(repo, subFrom, subTo, path, out);
    }),
  );
}

/**
 * The paths whose blobs differ between commits `fromOid` and `toOid`. Subtrees with the same oid on
 * both sides are skipped without being read, so the cost grows with what changed, not with the
 * size of the repository. Sorted by path.
 */
export async function diffCommits(repo: Repo, fromOid: string, toOid: string): Promise<TreeChange[]> {
  if (fromOid === toOid) return [];
  const [fromTree, toTree] = await Promise.all([treeOfCommit(repo, fromOid), treeOfCommit(repo, toOid)]);
  const out: TreeChange[] = [];
  await diffTreeOids(repo, fromTree, toTree, '', out);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Whether two blobs are the same content and mode; an unknown oid is never the same (both missing is). */
export function sameBlob(
  a: { oid: string | undefined; mode: number } | undefined,
  b: { oid: string | undefined; mode: number } | undefined,
): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.oid !== undefined && a.oid === b.oid && a.mode === b.mode;
}
