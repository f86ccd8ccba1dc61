import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, readlink, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { z } from 'zod';

/** One file of a {@link FilePatch}: a regular file (content in base64, mode bits) or a symlink. */
export interface PatchFile {
  /** Path relative to the workspace root, `/`-separated. */
  readonly path: string;
  /** Permission bits (`0o644`, `0o755`); ignored for a symlink. */
  readonly mode: number;
  /** The file's bytes in base64; for a symlink, its target in base64. */
  readonly data: string;
  /** True for a symlink. @default false */
  readonly symlink?: boolean;
}

/**
 * A candidate's change as data: the complete content of its mutable paths. Applied on top of the
 * base commit by {@link applyFilePatch}, it makes those paths byte-equal to the candidate's copy
 * (a file the candidate deleted is absent from `files`, so it is deleted). Everything outside
 * `mutable` comes from the base commit. Mutable surfaces are small (a `train.py`, a skill folder),
 * so whole files travel instead of a diff: nothing to apply fuzzily, nothing to conflict.
 */
export interface FilePatch {
  /** The mutable paths (files or directories) this patch defines entirely. */
  readonly mutable: readonly string[];
  /** Every file under `mutable`, sorted by path. */
  readonly files: readonly PatchFile[];
}

/** zod schema of {@link FilePatch}. */
export const filePatchSchema = z.object({
  mutable: z.array(z.string().min(1)),
  files: z.array(
    z.object({ path: z.string().min(1), mode: z.number().int(), data: z.string(), symlink: z.boolean().optional() }),
  ),
});

const inside = (p: string) => !normalize(p).startsWith('..') && !normalize(p).startsWith('/');

async function walk(root: string, rel: string, out: PatchFile[]): Promise<void> {
  const abs = join(root, rel);
  let st;
  try {
    st = await lstat(abs);
  } catch {
    return; // absent: the patch deletes it
  }
  if (st.isSymbolicLink())
    out.push({ path: rel, mode: 0o777, data: Buffer.from(await readlink(abs)).toString('base64'), symlink: true });
  else if (st.isDirectory()) {
    for (const name of (await readdir(abs)).sort()) await walk(root, `${rel}/${name}`, out);
  } else if (st.isFile())
    out.push({ path: rel, mode: st.mode & 0o777, data: (await readFile(abs)).toString('base64') });
}

/**
 * Reads the patch of the workspace at `root`: every file under the `mutable` paths (relative).
 *
 * @throws {Error} when a mutable path is absolute or leaves `root`.
 */
export async function readFilePatch(root: string, mutable: readonly string[]): Promise<FilePatch> {
  const files: PatchFile[] = [];
  for (const m of mutable) {
    if (!inside(m))
      throw new Error(`[loop] [workers-bullmq] mutable path ${m} must be relative and inside the workspace`);
    await walk(root, normalize(m).replace(/\/$/, ''), files);
  }
  files.sort((a, z) => (a.path < z.path ? -1 : a.path > z.path ? 1 : 0));
  return { mutable: [...mutable], files };
}

/**
 * Applies `patch` to the working copy at `dir`: removes each mutable path, then writes every file
 * (mode bits set, symlinks made). Afterwards the mutable paths of `dir` are byte-equal to the
 * patched workspace's.
 *
 * @throws {Error} when a path in the patch leaves `dir`, or on a file-system error.
 */
export async function applyFilePatch(dir: string, patch: FilePatch): Promise<void> {
  for (const m of patch.mutable) {
    if (!inside(m)) throw new Error(`[loop] [workers-bullmq] patch path ${m} leaves the working copy`);
    await rm(join(dir, m), { recursive: true, force: true });
  }
  for (const f of patch.files) {
    if (
      !inside(f.path) ||
      !patch.mutable.some((m) => f.path === normalize(m) || f.path.startsWith(`${normalize(m).replace(/\/$/, '')}/`))
    ) {
      throw new Error(`[loop] [workers-bullmq] patch file ${f.path} is outside its mutable paths`);
    }
    const target = join(dir, f.path);
    await mkdir(dirname(target), { recursive: true });
    if (f.symlink) await symlink(Buffer.from(f.data, 'base64').toString(), target);
    else {
      await writeFile(target, Buffer.from(f.data, 'base64'));
      await chmod(target, f.mode);
    }
  }
}

/** sha256 (hex) of a patch's paths, modes and bytes: equal patches have equal digests. */
export function patchDigest(patch: FilePatch): string {
  const hash = createHash('sha256');
  for (const m of patch.mutable) hash.update(`m\0${m}\0`);
  for (const f of patch.files) hash.update(`f\0${f.path}\0${f.mode}\0${f.symlink ? 'l' : 'f'}\0${f.data}\0`);
  return hash.digest('hex');
}
