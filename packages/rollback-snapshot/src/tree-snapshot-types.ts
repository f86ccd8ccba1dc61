import { isAbsolute } from 'node:path';
import type { Clock } from '@loop/core';
import { z } from 'zod';
import type { TreeSnapshotFs } from './tree-snapshot-fs.js';

/** One entry of a {@link TreeSnapshot}: a file (its content hash, mode and size), a directory, or a symlink. */
export type TreeEntry =
  | {
      readonly type: 'file';
      /** SHA-256 (hex) of the content: the object holding it in the store. */
      readonly hash: string;
      /** Permission bits (`mode & 0o7777`). */
      readonly mode: number;
      /** Size in bytes. */
      readonly size: number;
    }
  | {
      readonly type: 'dir';
      /** Permission bits (`mode & 0o7777`). */
      readonly mode: number;
    }
  | {
      readonly type: 'symlink';
      /** The link's target, verbatim (never resolved nor made absolute: FACTS.md `verbatimSymlinks`). */
      readonly target: string;
    };

/**
 * A whole tree at one moment: every file, directory and symlink under `root` except the excluded
 * names, keyed by `/`-separated relative path. It holds hashes, not bytes: the contents are in the
 * store's objects, so a snapshot of a large tree is a small value. Immutable.
 */
export interface TreeSnapshot {
  /** Absolute path of the tree. */
  readonly root: string;
  /** Relative path → entry. */
  readonly entries: ReadonlyMap<string, TreeEntry>;
  /** When it was taken, ms since the epoch (the store's clock). */
  readonly takenAt: number;
}

/** One file or symlink that differs between two snapshots (directories are not listed). */
export interface TreeChange {
  /** Relative path, `/`-separated. */
  readonly path: string;
  /** `added` / `deleted`: only in the second / first snapshot; `modified`: content, mode or type differ. */
  readonly status: 'added' | 'modified' | 'deleted';
}

/** What one {@link TreeSnapshotStore.restore} did. */
export interface TreeRestoreReport {
  /** Files and symlinks written (content restored), sorted. */
  readonly written: readonly string[];
  /** Paths removed (created since the snapshot, or of another type; a directory's contents are not listed), sorted. */
  readonly removed: readonly string[];
  /** Existing files and directories whose mode only was reset, sorted. */
  readonly modes: readonly string[];
  /** Directories created, sorted. */
  readonly created: readonly string[];
}

/** Options of {@link createTreeSnapshotStore}. */
export interface TreeSnapshotStoreOptions {
  /** Absolute path of the tree to snapshot (a worktree). */
  readonly root: string;
  /**
   * Absolute directory of the content-addressed store (`<storeDir>/objects/..`), outside `root`.
   * Created on first use; reuse one store across snapshots of one tree: unchanged files cost a
   * `stat`, not a copy.
   */
  readonly storeDir: string;
  /** Entry names skipped at any depth (never snapshotted, compared, removed nor restored). @default ['.git'] */
  readonly exclude?: readonly string[];
  /**
   * The clock the file system stamps files with, used only to spot "racy" files (changed within the
   * file system's timestamp granularity of the snapshot, so a later same-size write could keep the
   * same stat): they are re-hashed next time. @default systemClock
   */
  readonly clock?: Clock;
  /** The synchronous file-system calls (see {@link TreeSnapshotFs}). @default nodeTreeSnapshotFs (node:fs) */
  readonly fs?: TreeSnapshotFs;
}

/** zod schema of {@link TreeSnapshotStoreOptions}. */
export const treeSnapshotStoreOptionsSchema = z
  .object({
    root: z.string().refine((p) => isAbsolute(p), 'root must be an absolute path'),
    storeDir: z.string().refine((p) => isAbsolute(p), 'storeDir must be an absolute path'),
    exclude: z
      .array(
        z
          .string()
          .min(1)
          .refine((n) => !n.includes('/'), 'an excluded name is one path segment, without /'),
      )
      .default(['.git']),
    clock: z
      .custom<Clock>((v) => typeof (v as Clock | undefined)?.now === 'function', 'clock must have now()')
      .optional(),
    fs: z
      .custom<TreeSnapshotFs>(
        (v) => typeof v === 'object' && v !== null && typeof (v as TreeSnapshotFs).lstatSync === 'function',
        'fs must implement TreeSnapshotFs',
      )
      .optional(),
  })
  .refine(
    (o) => {
      const rel = o.storeDir.startsWith(o.root.endsWith('/') ? o.root : `${o.root}/`)
        ? o.storeDir.slice(o.root.length).replace(/^\//, '')
        : undefined;
      return rel === undefined ? o.storeDir !== o.root : o.exclude.includes(rel.split('/')[0]!);
    },
    {
      message: 'storeDir must be outside root (or under an excluded name): a snapshot must not contain its own store',
      path: ['storeDir'],
    },
  );

/**
 * Whole-tree snapshots and verified restores whose cost follows the change, not the tree: see
 * {@link createTreeSnapshotStore}. Members are synchronous inside (one caller at a time per store)
 * and return promises.
 */
export interface TreeSnapshotStore {
  /** `tree-snapshot(<root>)`. */
  readonly name: string;
  /** The tree's absolute path. */
  readonly root: string;
  /**
   * Walks the tree (one `lstat` per entry) and returns its {@link TreeSnapshot}. A file whose
   * stat (size, mtime, ctime, inode) matches the store's last record of it, and was not racy then,
   * keeps its hash unread; any other file is read, hashed and, when its content is new, copied
   * into the store.
   *
   * @throws {LoopError} `RESTORE_FAILED` when the tree cannot be read (the root is missing, EACCES).
   */
  readonly snapshot: () => Promise<TreeSnapshot>;
  /**
   * Puts the tree back to `snapshot`: takes a snapshot of the current tree first (its changed
   * files go into the store: the way back), loads and verifies (SHA-256) every object it will
   * write BEFORE touching the tree, then removes what is extra, recreates directories, rewrites
   * only the files and symlinks whose content differs (temp file + rename, mode set), resets
   * modes, and re-reads and hashes every file it wrote. Files it did not need to touch are left
   * alone (mtimes included). Idempotent. If anything fails after the tree was touched, the tree is
   * put back to its state before the call; either way nothing is left half-restored silently.
   *
   * @throws {LoopError} `RESTORE_FAILED` naming the paths: an object missing or corrupt in the
   *   store (the tree is untouched), a write or verification failure (`details.rolledBack` says
   *   whether the tree was put back to its state before the call), or a snapshot of another root.
   */
  readonly restore: (snapshot: TreeSnapshot) => Promise<TreeRestoreReport>;
  /**
   * Saves `snapshot` under `name` in the store (`<storeDir>/snapshots/<name>.json`) so another
   * process can {@link TreeSnapshotStore.load} it after a kill: the contents are already in the
   * store (a snapshot copies them), the manifest is written to a temp file and renamed, so a saved
   * name always names a complete snapshot (a kill leaves the previous one, or none). Replaces an
   * earlier snapshot of that name.
   *
   * @throws {LoopError} `CONFIG_INVALID` for a bad name (letters, digits, `.`, `_`, `-`) or a
   *   snapshot of another root; `STATE_WRITE_FAILED` when the manifest cannot be written (ENOSPC).
   */
  readonly save: (snapshot: TreeSnapshot, name: string) => Promise<void>;
  /**
   * The snapshot saved under `name`, or `undefined` when none was (completely) saved. Every
   * content it names is checked present in the store.
   *
   * @throws {LoopError} `RESTORE_FAILED` when the manifest is unreadable or names missing contents.
   */
  readonly load: (name: string) => Promise<TreeSnapshot | undefined>;
  /** The names of the saved snapshots, sorted. */
  readonly saved: () => Promise<string[]>;
  /**
   * The bytes of a file entry of a snapshot, from the store, verified.
   *
   * @throws {LoopError} `RESTORE_FAILED` when the object is missing or corrupt.
   */
  readonly read: (entry: Extract<TreeEntry, { type: 'file' }>) => Buffer;
}
