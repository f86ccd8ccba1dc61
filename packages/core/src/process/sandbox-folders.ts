import { existsSync, lstatSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

/**
 * A folder that holds one or more of a sandboxed command's own writable files (its targets),
 * bound writable so that the usual edit patterns work: a temp file beside the target renamed onto
 * it (`sed -i`, Python's `os.replace`, write-file-atomic), the target renamed to a backup and
 * written anew (vim, emacs). Every other entry that exists when the command starts is bound
 * read-only over it (a mount point: writing is EROFS, deleting or renaming it EBUSY); a symlink
 * cannot be bound (the mount would follow it) and is put back after the call instead. What the
 * command creates in the folder (temp files, backups) is removed after the call by
 * {@link sweepSandboxFolders}, so only the targets change.
 */
export interface SandboxFolder {
  /** Real absolute path of the folder. */
  readonly dir: string;
  /** The targets in it: absolute paths (real parent folders); a missing one may lie in folders yet to be made. */
  readonly targets: readonly string[];
  /** Names of the existing entries bound read-only over it (not the targets, nor symlinks). */
  readonly readOnly: readonly string[];
  /** Existing symlink entries (name → link text): never bound; {@link sweepSandboxFolders} puts back a changed one. */
  readonly links: ReadonlyMap<string, string>;
}

/** How a command's own writable paths are bound (see {@link planSandboxBinds}). */
export interface SandboxBinds {
  /** Folders bound writable with their other entries read-only. */
  readonly folders: readonly SandboxFolder[];
  /** Paths bound writable on their own: directories, the user's extra paths, a file whose folder is too large. */
  readonly paths: readonly string[];
  /** What the command should know: e.g. a target whose folder is too large, writable only in place. */
  readonly notes: readonly string[];
}

/**
 * Entries of a target's folder past which it is not bound per entry (each read-only entry is one
 * mount: about 0.2 s for 256 on a quiet machine, 2.3 s for 1,000, and bwrap takes at most 9,000
 * arguments). Such a target is writable in place only, as before issue 32.
 */
export const DEFAULT_MAX_FOLDER_ENTRIES = 256;

const isInside = (path: string, dir: string): boolean => {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};
const covers = (dir: string, path: string): boolean => path === dir || isInside(path, dir);

function kind(path: string): 'missing' | 'link' | 'dir' | 'other' {
  try {
    const s = lstatSync(path);
    return s.isSymbolicLink() ? 'link' : s.isDirectory() ? 'dir' : 'other';
  } catch {
    return 'missing';
  }
}

function nearestExisting(path: string): string {
  let p = resolve(path);
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return realpathSync(p);
}

/** A missing path with its real nearest existing ancestor in front (`/real/a` + `b/c.txt`). */
function realMissing(path: string): { folder: string; path: string } {
  const folder = nearestExisting(path);
  let p = resolve(path);
  const rest: string[] = [];
  while (!existsSync(p) && dirname(p) !== p) {
    rest.unshift(basename(p));
    p = dirname(p);
  }
  return { folder, path: join(folder, ...rest) };
}

/**
 * Plans the writable binds of a sandboxed command: `own` are its own writable paths (a symlink is
 * never bound: binding would follow it), `extra` the user's (`writable` option; symlinks
 * followed, a missing one through its nearest existing parent).
 * - a directory, and every extra path, is bound writable as a whole;
 * - a file (or a missing one, through its nearest existing folder) is made writable through its
 *   folder (see {@link SandboxFolder}), unless a writable directory already covers it; a folder with
 *   more than `maxFolderEntries` other entries binds the file alone, in place (with a note), and a
 *   missing target there stays unwritable.
 *
 * @param maxFolderEntries see {@link DEFAULT_MAX_FOLDER_ENTRIES}.
 */
export function planSandboxBinds(
  own: readonly string[],
  extra: readonly string[] = [],
  maxFolderEntries = DEFAULT_MAX_FOLDER_ENTRIES,
): SandboxBinds {
  const dirs: string[] = [];
  const files: { folder: string; path: string }[] = [];
  for (const w of own) {
    const k = kind(resolve(w));
    if (k === 'link') continue;
    if (k === 'dir') dirs.push(realpathSync(w));
    else if (k === 'missing') files.push(realMissing(w));
    else {
      const folder = realpathSync(dirname(resolve(w)));
      files.push({ folder, path: join(folder, basename(w)) });
    }
  }
  const extraPaths = extra.map(nearestExisting);
  const wholes = [...dirs, ...extraPaths];
  const paths = new Set(wholes);
  const notes: string[] = [];
  const byFolder = new Map<string, string[]>();
  for (const f of files) {
    if (wholes.some((d) => covers(d, f.folder))) continue;
    byFolder.set(f.folder, [...(byFolder.get(f.folder) ?? []), f.path]);
  }
  const folders: SandboxFolder[] = [];
  for (const [dir, targets] of byFolder) {
    const keep = new Set(targets.flatMap((t) => firstEntryUnder(dir, t)));
    const names = readdirSync(dir).filter((n) => !keep.has(n));
    if (names.length > maxFolderEntries) {
      for (const t of targets) {
        if (kind(t) === 'other') paths.add(t);
        const so =
          kind(t) === 'other'
            ? 'only the file itself is writable, in place: tools that replace it by rename (sed -i, editors) fail there'
            : 'it cannot be created';
        const size = `its folder has ${names.length} other entries (more than ${maxFolderEntries})`;
        notes.push(`${t}: ${size}, so ${so}; move it to a smaller folder or make its folder the target`);
      }
      continue;
    }
    const links = new Map<string, string>();
    const readOnly: string[] = [];
    for (const n of names) {
      if (kind(join(dir, n)) === 'link') links.set(n, readlinkSync(join(dir, n)));
      else readOnly.push(n);
    }
    folders.push({ dir, targets, readOnly, links });
  }
  return { folders, paths: [...paths], notes };
}

/** The name of the entry of `dir` that holds `path` (itself, or its first folder under `dir`); none when outside. */
function firstEntryUnder(dir: string, path: string): string[] {
  if (!isInside(path, dir)) return [];
  return [relative(dir, path).split('/')[0]!];
}

/**
 * The bwrap arguments of {@link planSandboxBinds}'s plan, shortest path first so a deeper bind
 * lands on top: `--bind` for each writable path and folder, each folder followed by
 * `--ro-bind-try` of its read-only entries.
 */
export function sandboxBindArgs(binds: SandboxBinds): string[] {
  const ops: { path: string; args: string[] }[] = [
    ...binds.paths.map((p) => ({ path: p, args: ['--bind', p, p] })),
    ...binds.folders.map((f) => {
      const readOnly = f.readOnly.flatMap((n) => ['--ro-bind-try', join(f.dir, n), join(f.dir, n)]);
      return { path: f.dir, args: ['--bind', f.dir, f.dir, ...readOnly] };
    }),
  ];
  return ops.sort((a, b) => a.path.length - b.path.length).flatMap((o) => o.args);
}

/** What {@link sweepSandboxFolders} did. */
export interface SandboxSweep {
  /** Paths the command created beside its targets, removed. */
  readonly removed: readonly string[];
  /** Symlinks beside its targets it removed or replaced, put back. */
  readonly restored: readonly string[];
}

/**
 * After a sandboxed command has ended (all its processes gone): removes what it created in its
 * targets' folders (temp files, editor backups, anything new that is not a target or a folder
 * holding one) and puts back the symlinks there it removed or replaced, so that only the targets
 * changed. Throws the file system's error when a removal fails.
 *
 * @param spare absolute paths never removed: files the caller itself writes there during the
 *   call (a log, a pid file). @default []
 */
export function sweepSandboxFolders(binds: SandboxBinds, spare: readonly string[] = []): SandboxSweep {
  const removed: string[] = [];
  const restored: string[] = [];
  for (const f of binds.folders) {
    const known = new Set([...f.readOnly, ...f.links.keys()]);
    sweepNew(f.dir, known, [...f.targets, ...spare], removed);
    for (const [name, text] of f.links) {
      const path = join(f.dir, name);
      if (kind(path) === 'link' && readlinkSync(path) === text) continue;
      rmSync(path, { recursive: true, force: true });
      symlinkSync(text, path);
      restored.push(path);
    }
  }
  return { removed, restored };
}

function sweepNew(dir: string, known: ReadonlySet<string>, targets: readonly string[], removed: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (known.has(name) || targets.includes(path)) continue;
    // A new folder on the way to a missing target: only the target may stay in it.
    if (targets.some((t) => isInside(t, path)) && kind(path) === 'dir') {
      sweepNew(path, new Set(), targets, removed);
      continue;
    }
    rmSync(path, { recursive: true, force: true });
    removed.push(path);
  }
}
