import nodeFs from 'node:fs';
import { deflateSync, inflateSync } from 'node:zlib';
import git, { type TreeEntry } from 'isomorphic-git';
import { foreignCode, rollbackError } from './errors.js';
import {
  EMPTY_TREE_OID,
  encodeCommit,
  encodeTree,
  parseCommit,
  parseTree,
  sha1Hex,
  unwrapObject,
  wrapObject,
  type CommitFields,
  type ObjectType,
  type ParsedCommit,
  type TreeEntryInput,
} from './object-format.js';
import { gitArgs, type Repo } from './repo.js';
import { onNodeFs } from './fs-ops.js';
import type { PackInput } from './pack-format.js';
import { mergePacks } from './pack-merge.js';
import { readPacked } from './pack-store.js';
import { addToBatch, withObjectBatch } from './with-object-batch.js';

// Git's loose objects read and written directly (node:zlib, node:crypto) through `repo.fs`, so
// each costs one file read or one temp-file write and rename, without isomorphic-git's per-call
// set-up. Anything unusual (a packed object, a tag where a commit is expected) goes to
// isomorphic-git, which knows packs and reports its own errors.

/** `<gitdir>/objects/<2 hex>/<38 hex>`. */
export const loosePath = (repo: Repo, oid: string): string =>
  `${repo.gitdir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`;

async function exists(repo: Repo, path: string): Promise<boolean> {
  try {
    if (onNodeFs(repo)) return nodeFs.lstatSync(path, { throwIfNoEntry: false }) !== undefined;
    await repo.fs.promises.lstat(path);
    return true;
  } catch (error) {
    const code = foreignCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

/**
 * Writes an object to the loose object store and returns its oid. Nothing is written when the
 * loose object already exists (content-addressed: the same bytes). The write goes through
 * `repo.fs`, whose object writes are a temp file in the fan-out directory and a rename (see
 * `lockedGitFs`), as git does; like git's default and isomorphic-git, the object is not fsynced.
 *
 * @throws the file-system error (ENOSPC, EACCES) unchanged.
 */
export async function writeObject(repo: Repo, type: ObjectType, bytes: Uint8Array): Promise<string> {
  const wrapped = wrapObject(type, bytes);
  const oid = sha1Hex(wrapped);
  if (!addToBatch(repo, oid, type, bytes)) await writeLoose(repo, oid, wrapped);
  return oid;
}

/** Writes `wrapped` (header and content) as the loose object `oid` unless it exists. */
async function writeLoose(repo: Repo, oid: string, wrapped: Uint8Array): Promise<void> {
  const path = loosePath(repo, oid);
  if (!(await exists(repo, path))) await repo.fs.promises.writeFile(path, deflateSync(wrapped));
}

/**
 * Runs `fn` with the objects it writes (`writeObject`) held in memory, then writes them as one
 * pack (at least PACK_MIN_OBJECTS of them; else loose), merging packs by size class after (see
 * `mergePacks`): two file creations per commit instead of one per object. The caller moves refs
 * and the index only after this returns, so nothing names an object before it is on disk.
 */
export function batchObjects<T>(repo: Repo, fn: () => Promise<T>): Promise<T> {
  const loose = (input: PackInput): Promise<void> => writeLoose(repo, input.oid, wrapObject(input.type, input.bytes));
  return withObjectBatch(repo, fn, loose, async (r) => {
    await mergePacks(r);
  });
}

/** An object's type and content bytes. */
export interface StoredObject {
  /** `blob`, `tree`, `commit` or `tag`. */
  readonly type: string;
  /** The content (without git's header). */
  readonly bytes: Uint8Array;
}

/**
 * Reads an object: the loose file first (inflated, its SHA-1 checked against `oid`), then a whole
 * entry of a pack rollback-git reads (see `readPacked`), else isomorphic-git's `readObject`
 * (deltas, large packs).
 *
 * @throws {LoopError} `RESTORE_FAILED` when a loose object or a whole pack entry is corrupt (does not inflate, a bad
 *   header, or a SHA-1 other than `oid`); isomorphic-git's `NotFoundError` when the object is
 *   nowhere; the file-system error otherwise.
 */
export async function readObject(repo: Repo, oid: string): Promise<StoredObject> {
  if (oid === EMPTY_TREE_OID) return { type: 'tree', bytes: new Uint8Array(0) };
  let deflated: Uint8Array | string;
  try {
    deflated = onNodeFs(repo)
      ? nodeFs.readFileSync(loosePath(repo, oid))
      : await repo.fs.promises.readFile(loosePath(repo, oid));
  } catch (error) {
    const code = foreignCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    const packed = await readPacked(repo, oid);
    if (packed === 'corrupt')
      throw corrupt(`object ${oid} in its pack`, oid, 'does not inflate to content that hashes to it');
    if (packed !== undefined) return packed;
    const { type, object } = await git.readObject({ ...gitArgs(repo), oid, format: 'content' });
    return { type, bytes: object as Uint8Array };
  }
  let wrapped: Buffer;
  try {
    wrapped = inflateSync(deflated);
  } catch (error) {
    throw corrupt(
      `loose object ${loosePath(repo, oid)}`,
      oid,
      `does not inflate (${foreignCode(error) ?? String(error)})`,
      error,
    );
  }
  const sha = sha1Hex(wrapped);
  if (sha !== oid) throw corrupt(`loose object ${loosePath(repo, oid)}`, oid, `hashes to ${sha}`);
  const object = unwrapObject(wrapped);
  if (object === undefined) throw corrupt(`loose object ${loosePath(repo, oid)}`, oid, 'has a malformed header');
  return { type: object.type, bytes: object.bytes };
}

function corrupt(subject: string, oid: string, what: string, cause?: unknown) {
  return rollbackError(
    'RESTORE_FAILED',
    `${subject} ${what}: the object store is corrupt; run git fsck and restore the object (for example from a clone)`,
    { cause, details: { oid } },
  );
}

/**
 * A blob's bytes. An object that is not a blob (an annotated tag naming one) is resolved by
 * isomorphic-git's `readBlob`, which also throws its `ObjectTypeError` for anything else.
 */
export async function readBlobBytes(repo: Repo, oid: string): Promise<Uint8Array> {
  const object = await readObject(repo, oid);
  if (object.type === 'blob') return object.bytes;
  return (await git.readBlob({ ...gitArgs(repo), oid })).blob;
}

/**
 * A tree's entries, sorted by name (the shape of isomorphic-git's `readTree`). A tree that does not
 * parse (see `parseTree`: a name isomorphic-git refuses, an unknown mode), or an oid that names a
 * commit or a tag, goes to isomorphic-git's `readTree`, which resolves it or throws its own error
 * (an unsafe name, a wrong type).
 */
export async function readTreeObject(repo: Repo, oid: string): Promise<TreeEntry[]> {
  const object = await readObject(repo, oid);
  const entries = object.type === 'tree' ? parseTree(object.bytes) : undefined;
  if (entries !== undefined) return entries;
  return (await git.readTree({ ...gitArgs(repo), oid })).tree;
}

/**
 * A commit's tree, parents and message. An annotated tag or a commit that does not parse goes to
 * isomorphic-git's `readCommit` (which follows tags and throws its own errors).
 */
export async function readCommitObject(repo: Repo, oid: string): Promise<ParsedCommit> {
  const object = await readObject(repo, oid);
  const parsed = object.type === 'commit' ? parseCommit(object.bytes) : undefined;
  if (parsed !== undefined) return parsed;
  const { commit } = await git.readCommit({ ...gitArgs(repo), oid });
  return { tree: commit.tree, parent: commit.parent, message: commit.message };
}

/** Writes a blob (see {@link writeObject}) and returns its oid. */
export async function writeBlobObject(repo: Repo, bytes: Uint8Array): Promise<string> {
  return writeObject(repo, 'blob', bytes);
}

/** Writes a tree of `entries` in git's order (see `encodeTree`) and returns its oid. */
export async function writeTreeObject(repo: Repo, entries: readonly TreeEntryInput[]): Promise<string> {
  return writeObject(repo, 'tree', encodeTree(entries));
}

/** Writes a commit byte-identical to isomorphic-git's `writeCommit` (see `encodeCommit`) and returns its oid. */
export async function writeCommitObject(repo: Repo, commit: CommitFields): Promise<string> {
  return writeObject(repo, 'commit', encodeCommit(commit));
}
