import { createHash } from 'node:crypto';
import { lstatSync, type Stats } from 'node:fs';
import { readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { z } from 'zod';
import type { Artifact, ArtifactSnapshot } from '../contracts/artifact.js';
import { parseOptions } from '../contracts/errors.js';

/** Options of {@link createFileArtifact}. */
export interface FileArtifactOptions {
  /** Absolute directory (the workspace). */
  root: string;
  /** Relative files or directories the proposer may change (seed 003 目标文件). */
  mutable: string[];
  /** Relative files or directories the proposer must not change (seed 003 只读文件). @default [] */
  readOnly?: string[];
  /**
   * The clock (ms since the epoch) of the stat cache's racy rule: a file's hash is reused without
   * reading it only while its inode, size, mode, mtime and ctime are those seen when it was hashed,
   * and those times were at least 50 ms older than that moment. @default Date.now
   */
  now?: () => number;
}

const relativePath = z
  .string()
  .min(1)
  .refine((p) => !isAbsolute(p) && !normalize(p).startsWith('..'), 'must be a path relative to root, inside it');

/** zod schema of {@link FileArtifactOptions}. */
export const fileArtifactOptionsSchema = z.object({
  root: z.string().refine((p) => isAbsolute(p), 'root must be an absolute path'),
  mutable: z.array(relativePath).min(1, 'at least one mutable path is required'),
  readOnly: z.array(relativePath).default([]),
  now: z
    .custom<() => number>(
      (f) => f === undefined || typeof f === 'function',
      'now must be a function returning ms since the epoch',
    )
    .optional(),
});

const SKIP = new Set(['.git', 'node_modules', '.loop']);

/** Files above this size are fingerprinted by size and mtime instead of their bytes (outside targets only). */
const OUTSIDE_HASH_LIMIT = 16 * 1024 * 1024;

/** A file's times this close (ms) to the moment it was hashed make the hash untrusted next time (git's racy rule). */
const RACY_MS = 50;

/**
 * The hashes of an artifact's files by absolute path, each with the `lstat` data it was computed
 * for (issue 13: an inspection reads only the files whose stat data changed, the way git's index
 * trusts unchanged files). A write changes the ctime even when `utimes` puts the mtime back, so a
 * reused hash is never stale; entries not seen by the last inspection are dropped.
 */
class HashCache {
  private entries = new Map<string, { key: string; value: string; trusted: boolean }>();
  private seen = new Map<string, { key: string; value: string; trusted: boolean }>();

  constructor(readonly now: () => number) {}

  /** Starts an inspection: what the previous one did not see is forgotten. */
  begin(): void {
    this.entries = this.seen;
    this.seen = new Map();
  }

  get(abs: string, key: string): string | undefined {
    const hit = this.entries.get(abs);
    if (hit === undefined || !hit.trusted || hit.key !== key) return undefined;
    this.seen.set(abs, hit);
    return hit.value;
  }

  set(abs: string, key: string, value: string, trusted: boolean): void {
    this.seen.set(abs, { key, value, trusted });
  }
}

/**
 * `0o100755`-style executable flag and sha256 of a regular file (read only when `cache` has no trusted hash for its
 * stat data).
 */
async function fileValue(abs: string, info: Stats, cache?: HashCache): Promise<string> {
  const key = `${info.ino}:${info.size}:${info.mode}:${info.mtimeMs}:${info.ctimeMs}`;
  const kept = cache?.get(abs, key);
  if (kept !== undefined) return kept;
  const hashedAt = cache?.now();
  const value = `${info.mode & 0o111 ? 'x' : '-'}${createHash('sha256')
    .update(await readFile(abs))
    .digest('hex')}`;
  if (cache !== undefined && hashedAt !== undefined)
    cache.set(abs, key, value, info.mtimeMs < hashedAt - RACY_MS && info.ctimeMs < hashedAt - RACY_MS);
  return value;
}

/**
 * How the mutable-surface check sees one path of a workspace, without following a symlink:
 *
 * - a regular file: `x<sha256>` or `-<sha256>` (the executable bit is part of the value);
 * - a symlink resolving inside `root`: `link:<target>`;
 * - a symlink resolving outside `root` (or dangling to an outside path):
 *   `outside-link:<target>\0<what it points at>` (a file's size, mtime and, up to 16 MiB, its
 *   hash; a folder's mtime, which a new or removed entry changes), so a write through the link
 *   changes the value (and so do others' writes into a linked shared folder: do not link one);
 * - a directory: `dir`; a fifo, socket or device: `other:<mode>` (never opened);
 * - nothing there: `null`.
 *
 * {@link compareSnapshots} rejects a changed `outside-link:` value even under a mutable path.
 */
export function surfaceValue(root: string, rel: string): Promise<string | null> {
  return surfaceOf(root, rel);
}

/** {@link surfaceValue}, reusing `cache`'s hashes for files whose stat data is unchanged. */
async function surfaceOf(root: string, rel: string, cache?: HashCache): Promise<string | null> {
  const abs = join(root, rel);
  // Synchronous: one lstat per target file per inspection, and a thread-pool round trip costs
  // ten times the call (issue 13). A path that cannot be stat'ed is absent.
  let info;
  try {
    info = lstatSync(abs, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (info === undefined) return null;
  if (info.isSymbolicLink()) {
    const target = await readlink(abs);
    const lexical = resolve(dirname(abs), target);
    const realRoot = await realpath(root).catch(() => root);
    const real = await realpath(abs).catch(() => undefined);
    const inside = (p: string) =>
      p === realRoot || p.startsWith(`${realRoot}${sep}`) || p === root || p.startsWith(`${root}${sep}`);
    if (real === undefined ? inside(lexical) : inside(real)) return `link:${target}`;
    let pointed = 'missing';
    try {
      const t = await stat(abs);
      if (t.isFile())
        pointed = `file ${t.size} ${t.mtimeMs} ${
          t.size <= OUTSIDE_HASH_LIMIT
            ? createHash('sha256')
                .update(await readFile(abs))
                .digest('hex')
            : ''
        }`;
      else pointed = `${t.isDirectory() ? 'dir' : 'other'} ${t.mtimeMs}`; // a new entry in the folder changes its mtime
    } catch {
      // dangling: 'missing'
    }
    return `outside-link:${target}\0${pointed}`;
  }
  if (info.isDirectory()) return 'dir';
  if (!info.isFile()) return `other:${info.mode}`;
  return fileValue(abs, info, cache);
}

async function hashTree(
  root: string,
  rel: string,
  out: Record<string, string | null>,
  cache: HashCache,
): Promise<void> {
  const value = await surfaceOf(root, rel, cache);
  if (value !== 'dir') {
    out[rel] = value;
    return;
  }
  for (const entry of (await readdir(join(root, rel))).sort()) {
    if (SKIP.has(entry)) continue;
    await hashTree(root, rel === '.' ? entry : `${rel}/${entry}`, out, cache);
  }
}

/**
 * A file artifact: the mutable and read-only paths under a workspace root. `inspect()` hashes
 * exactly those files (directories recursively, skipping `.git` and `node_modules`), so its cost
 * grows with the artifact, not the repository; a file whose `lstat` data (inode, size, mode,
 * mtime, ctime) is unchanged since it was hashed, and was not racy then, is not read again. The executable bit is part
 * of the hash. Symlinks
 * are never followed: each is recorded by its target (see {@link surfaceValue}), and one that
 * points outside the workspace also by what it points at, so creating one in a target folder or
 * writing through one is a violation.
 *
 * @throws {ConfigError} `CONFIG_INVALID` when root is not absolute or a path leaves the root.
 */
export function createFileArtifact(options: FileArtifactOptions): Artifact {
  const o = parseOptions(fileArtifactOptionsSchema, options, 'file-artifact');
  const cache = new HashCache(options.now ?? Date.now);
  return {
    name: `files(${o.mutable.join(', ')})`,
    root: o.root,
    mutable: o.mutable.map((p) => normalize(p)),
    readOnly: o.readOnly.map((p) => normalize(p)),
    inspect: async (): Promise<ArtifactSnapshot> => {
      const out: Record<string, string | null> = {};
      cache.begin();
      for (const p of [...o.mutable, ...o.readOnly]) await hashTree(o.root, normalize(p), out, cache);
      return out;
    },
  };
}
