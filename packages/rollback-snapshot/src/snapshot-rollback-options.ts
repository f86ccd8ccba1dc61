import { isAbsolute, normalize } from 'node:path';
import { z } from 'zod';
import type { Clock } from '@loop/core';
import type { SnapshotFs } from './snapshot-fs.js';

/** Options of {@link createSnapshotRollback}. */
export interface SnapshotRollbackOptions {
  /** Absolute path of the workspace ({{WORKSPACE}}); mutable paths are relative to it. */
  workspace: string;
  /**
   * Absolute run directory (`.aid/pipeline/autoresearch/<TASK_ID>`); every snapshot goes under `<runDir>/snapshots` and
   * nowhere else.
   */
  runDir: string;
  /**
   * The mutable files, relative to `workspace`. @default resolved from git status (read-only), filtered by `isSource`
   */
  files?: string[];
  /** Keeps a git-status path in the surface. @default defaultSourceFilter */
  isSource?: (path: string) => boolean;
  /** The clock for the snapshots' UTC stamps. @default systemClock */
  clock?: Clock;
  /**
   * The clock the file system stamps files with, used only to spot "racy" files (changed within
   * the timestamp granularity of the moment their stat was recorded): they are hashed, not trusted
   * by stat. @default systemClock
   */
  fsClock?: Clock;
  /** The file system. @default node:fs/promises */
  fs?: SnapshotFs;
  /**
   * Largest difference, in ms, between a restored file's mtime and its snapshot's that still verifies (timestamps round
   * to the ms). @default 2
   */
  mtimeToleranceMs?: number;
  /** Files copied, hashed or restored at once (a bounded pool, p-limit). @default 8 */
  concurrency?: number;
  /**
   * Retention of the pre-edit copies (`<NNN>-pre-...`): those of the last `retainIterations`
   * iterations are kept, older ones are removed when a later iteration is kept or reverted (the
   * results rows of older iterations then name copies that are gone). The baseline and the kept
   * directories are never pruned: together they are every kept state. `Infinity` keeps everything.
   * @default 100
   */
  retainIterations?: number;
  /**
   * With a plan, also find mutable files the edit touched outside it (one `stat` per mutable file
   * per keep or revert, compared with the kept state's record) and restore them on revert. `false`
   * trusts the plan: only the planned files are checked, copied and restored, so an iteration's
   * cost does not depend on the surface's size, and an edit outside its plan stays in the tree
   * (pair it with a guard that refuses such edits). Without a plan the stat check always runs.
   * @default true
   */
  detectUnplanned?: boolean;
  /** Which git reads the surface when `files` is not given (see `resolveMutableSurface`). @default 'auto' */
  git?: 'auto' | 'cli' | 'isomorphic-git';
}

const relativePath = z
  .string()
  .min(1)
  .refine((p) => !isAbsolute(p) && !normalize(p).startsWith('..'), 'must be a path relative to workspace, inside it');

/** zod schema of {@link SnapshotRollbackOptions}. */
export const snapshotRollbackOptionsSchema = z.object({
  workspace: z.string().refine((p) => isAbsolute(p), 'workspace must be an absolute path'),
  runDir: z.string().refine((p) => isAbsolute(p), 'runDir must be an absolute path'),
  files: z.array(relativePath).min(1, 'an explicit surface needs at least one file').optional(),
  isSource: z
    .custom<(path: string) => boolean>((v) => typeof v === 'function', 'isSource must be a function')
    .optional(),
  clock: z
    .custom<Clock>((v) => typeof (v as Clock | undefined)?.now === 'function', 'clock must have now()')
    .optional(),
  fsClock: z
    .custom<Clock>((v) => typeof (v as Clock | undefined)?.now === 'function', 'fsClock must have now()')
    .optional(),
  fs: z.custom<SnapshotFs>((v) => typeof v === 'object' && v !== null, 'fs must be an object').optional(),
  mtimeToleranceMs: z.number().min(0).default(2),
  concurrency: z.number().int().min(1).max(256).default(8),
  retainIterations: z.number().min(1).default(100),
  git: z.enum(['auto', 'cli', 'isomorphic-git']).default('auto'),
  detectUnplanned: z.boolean().default(true),
});
