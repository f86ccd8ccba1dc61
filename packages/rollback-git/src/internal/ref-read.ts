import nodeFs from 'node:fs';
import git from 'isomorphic-git';
import { foreignCode } from './errors.js';
import { onNodeFs } from './fs-ops.js';
import { gitArgs, type Repo } from './repo.js';

// Reads of full ref names (`HEAD`, `refs/...`) straight from their loose files: one file read per
// hop instead of isomorphic-git's per-call set-up, packed-refs parse and six candidate paths.
// Anything else (a short name, a ref only in packed-refs, an odd file) goes to isomorphic-git.

const OID = /^[0-9a-f]{40}$/;
const SYMBOLIC = 'ref: ';

/** Whether `ref` is a full ref name this module reads itself. */
const isFullName = (ref: string): boolean =>
  ref === 'HEAD' || (ref.startsWith('refs/') && !ref.includes('..') && !ref.endsWith('/'));

/** The trimmed content of a loose ref file, or `undefined` when there is none (or it is empty). */
async function readLoose(repo: Repo, ref: string): Promise<string | undefined> {
  try {
    // A ref is a few dozen bytes: on node:fs the synchronous read skips four thread-pool round trips.
    const path = repo.realPath(`${repo.gitdir}/${ref}`); // a linked worktree's HEAD is its own
    const content = onNodeFs(repo) ? nodeFs.readFileSync(path) : await repo.fs.promises.readFile(path);
    const text = (
      typeof content === 'string'
        ? content
        : Buffer.from(content.buffer, content.byteOffset, content.length).toString('utf8')
    ).trim();
    return text === '' ? undefined : text;
  } catch (error) {
    const code = foreignCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
    throw error;
  }
}

/**
 * Resolves a ref as isomorphic-git's `resolveRef` does, with the same `depth` rule (each hop,
 * the name itself included, uses one; at 0 the name reached is returned: `HEAD` with depth 2 gives
 * `refs/heads/<branch>` when HEAD is symbolic, its oid when detached). Full names whose loose files
 * hold an oid or a `ref: ` line are read directly; a missing loose file (a packed ref), a cycle, or
 * a short name falls back to isomorphic-git's `resolveRef` for the whole lookup.
 *
 * @returns a 40-hex oid, or a ref name when `depth` ran out first.
 * @throws isomorphic-git's `NotFoundError` when the ref does not exist (through the fallback).
 */
export async function resolveRefFast(repo: Repo, ref: string, depth?: number): Promise<string> {
  const visited = new Set<string>();
  let name = ref;
  let left = depth;
  for (;;) {
    if (left !== undefined) {
      left -= 1;
      if (left === -1) return name;
    }
    if (OID.test(name)) return name;
    if (!isFullName(name) || visited.has(name)) break;
    visited.add(name);
    const value = await readLoose(repo, name);
    if (value === undefined) break;
    if (value.startsWith(SYMBOLIC)) {
      // The `ref: ` prefix is a hop of its own in isomorphic-git's count.
      if (left !== undefined) {
        left -= 1;
        if (left === -1) return value;
      }
      name = value.slice(SYMBOLIC.length).trim();
    } else if (OID.test(value)) {
      name = value;
    } else break;
  }
  return git.resolveRef({ ...gitArgs(repo), ref, ...(depth === undefined ? {} : { depth }) });
}

/** Parses `packed-refs`: full ref name to oid (peeled `^` lines and comments skipped). */
function parsePackedRefs(text: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
    const space = line.indexOf(' ');
    if (space === 40) refs.set(line.slice(41).trim(), line.slice(0, 40));
  }
  return refs;
}

/**
 * What exactly the ref `name` (a full name, `refs/...`) holds: its loose file, else its
 * `packed-refs` line. No other spellings are tried (unlike `resolveRef`) and symbolic refs are not
 * followed, so a fresh name costs two failed reads.
 *
 * @returns the oid (or `ref: <target>` for a symbolic ref); `undefined` when the ref does not exist.
 */
export async function readRefExact(repo: Repo, name: string): Promise<string | undefined> {
  const loose = await readLoose(repo, name);
  if (loose !== undefined) return loose;
  const packed = await readLoose(repo, 'packed-refs');
  return packed === undefined ? undefined : parsePackedRefs(packed).get(name);
}
