import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { z } from 'zod';
import type { Artifact, ArtifactSnapshot } from './artifact.js';
import { parseOptions } from './errors.js';

/** Options of {@link createFileArtifact}. */
export interface FileArtifactOptions {
  /** Absolute directory (the workspace). */
  root: string;
  /** Relative files or directories the proposer may change (seed 003 目标文件). */
  mutable: string[];
  /** Relative files or directories the proposer must not change (seed 003 只读文件). @default [] */
  readOnly?: string[];
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
});

const SKIP = new Set(['.git', 'node_modules', '.loop']);

/** Files above this size are fingerprinted by size and mtime instead of their bytes (outside targets only). */
const OUTSIDE_HASH_LIMIT = 16 * 1024 * 1024;

/** `0o100755`-style executable flag and sha256 of a regular file. */
async function fileValue(abs: string, mode: number): Promise<string> {
  return `${mode & 0o111 ? 'x' : '-'}${createHash('sha256').update(await readFile(abs)).digest('hex')}`;
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
export async function surfaceValue(root: string, rel: string): Promise<string | null> {
  const abs = join(root, rel);
  let info;
  try {
    info = await lstat(abs);
  } catch {
    return null;
  }
  if (info.isSymbolicLink()) {
    const target = await readlink(abs);
    const lexical = resolve(dirname(abs), target);
    const realRoot = await realpath(root).catch(() => root);
    const real = await realpath(abs).catch(() => undefined);
    const inside = (p: string) => p === realRoot || p.startsWith(`${realRoot}${sep}`) || p === root || p.startsWith(`${root}${sep}`);
    if (real === undefined ? inside(lexical) : inside(real)) return `link:${target}`;
    let pointed = 'missing';
    try {
      const t = await stat(abs);
      if (t.isFile()) pointed = `file ${t.size} ${t.mtimeMs} ${t.size <= OUTSIDE_HASH_LIMIT ? createHash('sha256').update(await readFile(abs)).digest('hex') : ''}`;
      else pointed = `${t.isDirectory() ? 'dir' : 'other'} ${t.mtimeMs}`; // a new entry in the folder changes its mtime
    } catch {
      // dangling: 'missing'
    }
    return `outside-link:${target}\0${pointed}`;
  }
  if (info.isDirectory()) return 'dir';
  if (!info.isFile()) return `other:${info.mode}`;
  return fileValue(abs, info.mode);
}

async function hashTree(root: string, rel: string, out: Record<string, string | null>): Promise<void> {
  const value = await surfaceValue(root, rel);
  if (value !== 'dir') {
    out[rel] = value;
    return;
  }
  for (const entry of (await readdir(join(root, rel))).sort()) {
    if (SKIP.has(entry)) continue;
    await hashTree(root, rel === '.' ? entry : `${rel}/${entry}`, out);
  }
}

/**
 * A file artifact: the mutable and read-only paths under a workspace root. `inspect()` hashes
 * exactly those files (directories recursively, skipping `.git` and `node_modules`), so its cost
 * grows with the artifact, not the repository. The executable bit is part of the hash. Symlinks
 * are never followed: each is recorded by its target (see {@link surfaceValue}), and one that
 * points outside the workspace also by what it points at, so creating one in a target folder or
 * writing through one is a violation.
 *
 * @throws {ConfigError} `CONFIG_INVALID` when root is not absolute or a path leaves the root.
 */
export function createFileArtifact(options: FileArtifactOptions): Artifact {
  const o = parseOptions(fileArtifactOptionsSchema, options, 'file-artifact');
  return {
    name: `files(${o.mutable.join(', ')})`,
    root: o.root,
    mutable: o.mutable.map((p) => normalize(p)),
    readOnly: o.readOnly.map((p) => normalize(p)),
    inspect: async (): Promise<ArtifactSnapshot> => {
      const out: Record<string, string | null> = {};
      for (const p of [...o.mutable, ...o.readOnly]) await hashTree(o.root, normalize(p), out);
      return out;
    },
  };
}
