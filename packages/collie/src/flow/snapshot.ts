import { chmod, lstat, mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LoopError } from '@loop/core';
import pLimit from 'p-limit';

/** Directory names never snapshotted nor restored, at any depth (git metadata, installed packages). */
export const SNAPSHOT_EXCLUDED: readonly string[] = Object.freeze(['.git', 'node_modules']);

/** One entry of a {@link WorktreeSnapshot}: a file (its bytes and mode), a directory, or a symlink. */
export type SnapshotEntry =
  | { readonly type: 'file'; readonly bytes: Buffer; readonly mode: number }
  | { readonly type: 'dir'; readonly mode: number }
  | { readonly type: 'symlink'; readonly target: string };

/**
 * The full content of a worktree at one moment: every file, directory and symlink under `root`
 * except {@link SNAPSHOT_EXCLUDED}, keyed by its `/`-separated path relative to `root`. It holds
 * the bytes of every file in memory, so it is meant for the small worktrees of a collie run.
 */
export interface WorktreeSnapshot {
  /** Absolute path of the worktree. */
  readonly root: string;
  /** Relative path → entry. */
  readonly entries: ReadonlyMap<string, SnapshotEntry>;
}

/** One changed file between two snapshots (paths relative to the worktree, `/`-separated). */
export interface SnapshotChange {
  readonly path: string;
  readonly status: 'added' | 'modified' | 'deleted';
}

/** Files read at once while snapshotting (the walk itself is sequential; the file reads dominate). */
const READ_CONCURRENCY = 32;

async function walk(root: string, rel: string, out: Map<string, SnapshotEntry>, files: string[]): Promise<void> {
  const dirents = await readdir(rel === '' ? root : join(root, rel), { withFileTypes: true });
  for (const d of dirents.sort((a, b) => a.name.localeCompare(b.name))) {
    if (SNAPSHOT_EXCLUDED.includes(d.name)) continue;
    const path = rel === '' ? d.name : `${rel}/${d.name}`;
    const abs = join(root, path);
    if (d.isSymbolicLink()) out.set(path, { type: 'symlink', target: await readlink(abs) });
    else if (d.isDirectory()) {
      out.set(path, { type: 'dir', mode: (await lstat(abs)).mode });
      await walk(root, path, out, files);
    } else if (d.isFile()) files.push(path);
  }
}

/** Reads the whole worktree (see {@link WorktreeSnapshot}); file contents are read `READ_CONCURRENCY` (32) at a time. */
export async function snapshotWorktree(root: string): Promise<WorktreeSnapshot> {
  const entries = new Map<string, SnapshotEntry>();
  const files: string[] = [];
  await walk(root, '', entries, files);
  const limit = pLimit(READ_CONCURRENCY);
  const read = await Promise.all(
    files.map((path) =>
      limit(async () => {
        const abs = join(root, path);
        const [bytes, st] = await Promise.all([readFile(abs), lstat(abs)]);
        return [path, { type: 'file', bytes, mode: st.mode } satisfies SnapshotEntry] as const;
      }),
    ),
  );
  for (const [path, entry] of read) entries.set(path, entry);
  return { root, entries };
}

function sameEntry(a: SnapshotEntry | undefined, b: SnapshotEntry | undefined): boolean {
  if (!a || !b || a.type !== b.type) return false;
  if (a.type === 'file' && b.type === 'file') return a.mode === b.mode && a.bytes.equals(b.bytes);
  if (a.type === 'symlink' && b.type === 'symlink') return a.target === b.target;
  return a.type === 'dir' && b.type === 'dir' && a.mode === b.mode;
}

/** The files and symlinks that differ between two snapshots, sorted by path (directories are not listed). */
export function diffSnapshots(before: WorktreeSnapshot, after: WorktreeSnapshot): SnapshotChange[] {
  const paths = new Set([...before.entries.keys(), ...after.entries.keys()]);
  const out: SnapshotChange[] = [];
  for (const path of [...paths].sort()) {
    const a = before.entries.get(path);
    const b = after.entries.get(path);
    const fileA = a !== undefined && a.type !== 'dir';
    const fileB = b !== undefined && b.type !== 'dir';
    if (!fileA && !fileB) continue;
    if (!fileA) out.push({ path, status: 'added' });
    else if (!fileB) out.push({ path, status: 'deleted' });
    else if (!sameEntry(a, b)) out.push({ path, status: 'modified' });
  }
  return out;
}

const depth = (path: string) => path.split('/').length;

async function put(root: string, path: string, entry: SnapshotEntry, current: SnapshotEntry | undefined): Promise<void> {
  const abs = join(root, ...path.split('/'));
  if (entry.type === 'dir') {
    await mkdir(abs, { recursive: true });
    if (current?.type !== 'dir' || current.mode !== entry.mode) await chmod(abs, entry.mode & 0o7777);
    return;
  }
  await mkdir(dirname(abs), { recursive: true });
  if (entry.type === 'symlink') {
    await rm(abs, { force: true });
    await symlink(entry.target, abs);
    return;
  }
  if (current?.type !== 'file' || !current.bytes.equals(entry.bytes)) await writeFile(abs, entry.bytes);
  if (current?.type !== 'file' || current.mode !== entry.mode) await chmod(abs, entry.mode & 0o7777);
}

/**
 * Puts the worktree back to `snapshot`: deletes what was created since (files, symlinks,
 * directories), rewrites changed or deleted files from the saved bytes and modes, then re-reads the
 * worktree to prove it is byte-identical. Never runs git.
 *
 * @throws {LoopError} `RESTORE_FAILED` when the worktree still differs afterwards.
 */
export async function restoreWorktree(snapshot: WorktreeSnapshot): Promise<void> {
  const { root } = snapshot;
  const now = await snapshotWorktree(root);
  const extra = new Set([...now.entries.keys()].filter((p) => snapshot.entries.get(p)?.type !== now.entries.get(p)?.type));
  for (const path of [...extra].sort((a, b) => depth(b) - depth(a))) await rm(join(root, ...path.split('/')), { recursive: true, force: true });
  const wanted = [...snapshot.entries].sort(([a], [b]) => depth(a) - depth(b));
  for (const [path, entry] of wanted) {
    const current = extra.has(path) ? undefined : now.entries.get(path);
    if (!sameEntry(current, entry)) await put(root, path, entry, current);
  }
  const after = await snapshotWorktree(root);
  const left = diffSnapshots(snapshot, after);
  const dirsDiffer = [...snapshot.entries, ...after.entries].some(([p, e]) => e.type === 'dir' && !sameEntry(snapshot.entries.get(p), after.entries.get(p)));
  if (left.length > 0 || dirsDiffer) {
    throw new LoopError('RESTORE_FAILED', `[loop] [collie] flow could not restore the worktree ${root}: ${left.map((c) => `${c.path} (${c.status})`).join(', ') || 'directories differ'}; restore it by hand (git checkout/clean) before retrying`, { details: { root, left } });
  }
}
