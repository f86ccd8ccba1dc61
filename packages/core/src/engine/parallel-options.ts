import { z } from 'zod';
import type { WorkingCopyProvider } from '../contracts/working-copy.js';

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
  /**
   * How candidates are scheduled (issue 27: no idle core).
   * - `batch`: K candidates, then the batch waits for its slowest one; the best passing one is
   *   kept. Rows do not depend on timing: two runs with the same seed give the same rows.
   * - `async`: a new candidate starts as soon as one of the `concurrency` slots frees (a pruned
   *   or fast run does not leave its core idle until the batch's slowest ends). Keep decisions and
   *   rows still go in iteration order: candidate n is decided once every earlier one is, kept
   *   only when better than the incumbent at that moment (a candidate proposed before an earlier
   *   keep is compared with it), and its row is written then. Proposals see the rows recorded when
   *   they are made, so rows depend on timing. `candidates` is then the pool's width when
   *   `concurrency` is not given. Not with `remeasureIncumbent`.
   * @default 'batch'
   */
  schedule?: 'batch' | 'async';
}

/** zod schema of {@link ParallelOptions}. */
export const parallelOptionsSchema = z
  .object({
    candidates: z.number().int().min(1).max(256).default(1),
    concurrency: z.number().int().min(1).optional(),
    workingCopies: z.custom<WorkingCopyProvider>(
      (p) =>
        typeof (p as WorkingCopyProvider)?.create === 'function' &&
        typeof (p as WorkingCopyProvider)?.adopt === 'function',
      'workingCopies must be a WorkingCopyProvider (create and adopt)',
    ),
    remeasureIncumbent: z.number().int().min(0).default(0),
    saveNonWinners: z.boolean().default(true),
    schedule: z.enum(['batch', 'async']).default('batch'),
  })
  .refine((o) => o.concurrency === undefined || o.concurrency <= o.candidates, {
    message: 'concurrency must be at most candidates',
    path: ['concurrency'],
  })
  .refine((o) => !(o.schedule === 'async' && o.remeasureIncumbent > 0), {
    message: 'remeasureIncumbent needs schedule "batch" (an async pool has no batch to re-measure the incumbent for)',
    path: ['remeasureIncumbent'],
  });
