import { z } from 'zod';
import type { WorkingCopyProvider } from './working-copy.js';

/**
 * Options of parallel candidates (`LoopOptions.parallel`), validated by
 * {@link parallelOptionsSchema} when the loop is created.
 */
export interface ParallelOptions {
  /**
   * K: candidates proposed and evaluated per batch, each in its own working copy. Every candidate
   * is a results row (its own iteration number); at most one per batch is kept. @default 1
   */
  candidates?: number;
  /** How many candidates run at once (p-limit), at most `candidates`. @default candidates */
  concurrency?: number;
  /** Makes the isolated working copies and adopts the winner into the main workspace. */
  workingCopies: WorkingCopyProvider;
  /**
   * Re-measure the incumbent this many times per batch, concurrently with the candidates (in the
   * main workspace, with the loop's harness), and decide every candidate of the batch against
   * these fresh samples instead of the stored ones. Use it for timing metrics, whose values depend
   * on how loaded the machine is: the incumbent is then measured under the same contention as the
   * candidates. 0 turns it off. @default 0
   */
  remeasureIncumbent?: number;
  /**
   * Keep every candidate that is not adopted reachable like an in-place discard (issue 15): after
   * the batch, each non-winner's change is adopted into the main workspace, recorded with
   * `rollback.commit` and rolled back with `rollback.revert` (with the git rollback its commit is
   * `refs/loop/discarded/<iteration>` and its row carries the commit id). Costs one commit and one
   * verified reset per non-winner; nothing is done when the rollback has no `commit`. @default true
   */
  saveNonWinners?: boolean;
}

/** zod schema of {@link ParallelOptions}. */
export const parallelOptionsSchema = z
  .object({
    candidates: z.number().int().min(1).max(256).default(1),
    concurrency: z.number().int().min(1).optional(),
    workingCopies: z.custom<WorkingCopyProvider>(
      (p) => typeof (p as WorkingCopyProvider)?.create === 'function' && typeof (p as WorkingCopyProvider)?.adopt === 'function',
      'workingCopies must be a WorkingCopyProvider (create and adopt)',
    ),
    remeasureIncumbent: z.number().int().min(0).default(0),
    saveNonWinners: z.boolean().default(true),
  })
  .refine((o) => o.concurrency === undefined || o.concurrency <= o.candidates, { message: 'concurrency must be at most candidates', path: ['concurrency'] });
