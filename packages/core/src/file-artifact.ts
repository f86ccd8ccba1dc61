import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, normalize } from 'node:path';
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

async function hashTree(root: string, rel: string, out: Record<string, string | null>): Promise<void> {
  const abs = join(root, rel);
  let info;
  try {
    info = await stat(abs);
  } catch {
    out[rel] = null;
    return;
  }
  if (info.isDirectory()) {
    for (const entry of await readdir(abs)) {
      if (SKIP.has(entry)) continue;
      await hashTree(root, rel === '.' ? entry : `${rel}/${entry}`, out);
    }
    return;
  }
  out[rel] = `${info.mode & 0o111 ? 'x' : '-'}${createHash('sha256').update(await readFile(abs)).digest('hex')}`;
}

/**
 * A file artifact: the mutable and read-only paths under a workspace root. `inspect()` hashes
 * exactly those files (directories recursively, skipping `.git` and `node_modules`), so its cost
 * grows with the artifact, not the repository. The executable bit is part of the hash.
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
