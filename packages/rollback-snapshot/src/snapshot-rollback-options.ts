import { isAbsolute, normalize } from 'node:path';
import { z } from 'zod';
import type { Clock } from '@loop/core';
import type { SnapshotFs } from './snapshot-fs.js';

/** Options of {@link createSnapshotRollback}. */
export interface SnapshotRollbackOptions {
  /** Absolute path of the workspace ({{WORKSPACE}}); mutable paths are relative to it. */
  workspace: string;
  /** Absolute run directory (`.aid/pipeline/autoresearch/<TASK_ID>`); every snapshot goes under `<runDir>/snapshots` and nowhere else. */
  runDir: string;
  /** The mutable files, relative to `workspace`. @default resolved from git status (read-only), filtered by `isSource` */
  files?: string[];
  /** Keeps a git-status path in the surface. @default defaultSourceFilter */
  isSource?: (path: string) => boolean;
  /** The clock for the snapshots' UTC stamps. @default systemClock */
  clock?: Clock;
  /** The file system. @default node:fs/promises */
  fs?: SnapshotFs;
  /** Largest difference, in ms, between a restored file's mtime and its snapshot's that still verifies (timestamps round to the ms). @default 2 */
  mtimeToleranceMs?: number;
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
  isSource: z.custom<(path: string) => boolean>((v) => typeof v === 'function', 'isSource must be a function').optional(),
  clock: z.custom<Clock>((v) => typeof (v as Clock | undefined)?.now === 'function', 'clock must have now()').optional(),
  fs: z.custom<SnapshotFs>((v) => typeof v === 'object' && v !== null, 'fs must be an object').optional(),
  mtimeToleranceMs: z.number().min(0).default(2),
});
