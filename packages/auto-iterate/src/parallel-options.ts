import { isAbsolute, normalize } from 'node:path';
import { type Harness, type WorkingCopyProvider } from '@loop/core';
import { createDirectoryWorkingCopies } from '@loop/core/artifacts';
import type { ParsedAutoIterateOptions } from './auto-iterate-schema.js';
import { z } from 'zod';

/**
 * `parallel` of {@link AutoIterateOptions}: core's parallel candidates (`LoopOptions.parallel`).
 * Each batch proposes `candidates` edits, each in its own working copy, evaluates them at once,
 * keeps at most the best one (committed on the run branch) and saves the others under
 * `refs/loop/discarded/<n>` like any discard; every candidate is a results.tsv row.
 */
export interface AutoIterateParallel {
  /** K: candidates per batch, 1..256. */
  candidates: number;
  /** Candidates evaluated at once, at most `candidates`. @default candidates */
  concurrency?: number;
  /** Re-measure the incumbent this many times per batch, alongside the candidates (timing metrics). @default 0 */
  remeasureIncumbent?: number;
  /**
   * `batch` (K candidates, then wait for the slowest; rows do not depend on timing) or `async`
   * (a freed slot starts the next candidate at once; decisions still in iteration order; see core
   * `ParallelOptions.schedule`). @default 'batch'
   */
  schedule?: 'batch' | 'async';
  /**
   * Relative paths symlinked into each local copy instead of copied (large read-only inputs such
   * as `node_modules` or a data set). Only for the local copies. @default []
   */
  link?: string[];
  /**
   * The working copies, injected: for example `createRemoteWorkingCopies` of
   * `@loop/workers-bullmq` (each candidate a job for a worker pool). @default local directory copies
   * of `dir` under the OS temp folder, each evaluated by the run command in the copy (its own pid
   * file slot, see core's `CommandHarnessOptions.pidFile`)
   */
  workingCopies?: WorkingCopyProvider;
  /**
   * The harness of the baseline and of `remeasureIncumbent` (the main workspace's runs): for
   * remote workers, `createRemoteHarness` so the incumbent is measured on the same pool. @default the run command in
   * `dir`
   */
  harness?: Harness;
}

/** A path relative to `dir`, inside it. */
export const relativePath = z
  .string()
  .min(1)
  .refine((p) => !isAbsolute(p) && !normalize(p).startsWith('..'), 'must be a path relative to dir, inside it');

/** zod schema of {@link AutoIterateParallel}. */
export const autoIterateParallelSchema = z
  .object({
    candidates: z.number().int().min(1).max(256),
    concurrency: z.number().int().min(1).optional(),
    remeasureIncumbent: z.number().int().min(0).optional(),
    schedule: z.enum(['batch', 'async']).optional(),
    link: z.array(relativePath).default([]),
    workingCopies: z
      .custom<WorkingCopyProvider>(
        (p) =>
          p === undefined ||
          (typeof (p as WorkingCopyProvider)?.create === 'function' &&
            typeof (p as WorkingCopyProvider)?.adopt === 'function'),
        'workingCopies must be a WorkingCopyProvider (create and adopt)',
      )
      .optional(),
    harness: z
      .custom<Harness>((h) => h === undefined || typeof (h as Harness)?.run === 'function', 'harness must have run()')
      .optional(),
  })
  .strict()
  .refine((p) => p.concurrency === undefined || p.concurrency <= p.candidates, {
    message: 'concurrency must be at most candidates',
    path: ['concurrency'],
  });

/** core's parallel options for `o.parallel`: the injected working copies, or local directory copies of `dir`. */
export function coreParallelOptions(o: ParsedAutoIterateOptions, commandHarness: (cwd: string) => Harness) {
  const p = o.parallel!;
  const workingCopies =
    p.workingCopies ??
    createDirectoryWorkingCopies({
      root: o.dir,
      mutable: o.files.targetFiles,
      readOnly: o.files.readOnlyFiles,
      exclude: [
        '.git',
        '.loop',
        o.files.resultsFile,
        o.files.logFile,
        ...(o.score.dimensionsFile ? [o.score.dimensionsFile] : []),
        ...(o.score.metricFile ? [o.score.metricFile] : []),
      ],
      link: p.link,
      harness: (dir) => commandHarness(dir),
    });
  return {
    candidates: p.candidates,
    workingCopies,
    ...(p.concurrency !== undefined ? { concurrency: p.concurrency } : {}),
    ...(p.remeasureIncumbent !== undefined ? { remeasureIncumbent: p.remeasureIncumbent } : {}),
    ...(p.schedule ? { schedule: p.schedule } : {}),
  };
}
