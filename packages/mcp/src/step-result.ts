import type { HostLogEntry } from './host.js';

/** The most of a crashed run's log a result carries (its end, from a line start), in bytes. */
export const LOG_TAIL_BYTES = 4000;

/** What one loop step (`loop_evaluate`, `loop_run_iteration`) did. */
export interface StepResult {
  /**
   * Whether the iteration ran: false when the run stopped first (its policy, `loop_stop`) and the edit was left in the
   * tree.
   */
  readonly evaluated: boolean;
  /** The iteration's row status: `keep`, `discard`, `crash` (or a rejection), or `not-evaluated`. */
  readonly decision: string;
  /** The iteration's number in results.tsv. */
  readonly iteration: number | null;
  /** Its score, `null` for a crash. */
  readonly score: number | null;
  /**
   * Its commit, 40 hex (a kept one is on the run branch, a discarded one under `refs/loop/discarded/<n>`); `''` when
   * none.
   */
  readonly commit: string;
  /** The best score after the step. */
  readonly best: number | null;
  /** The best state's commit, 40 hex on every result. */
  readonly bestId: string;
  /** The baseline's row, when this step measured it (the first step of a workspace). */
  readonly baseline?: HostLogEntry;
  /** Why a crash row crashed: the harness's exit, or the configured proposer's error. */
  readonly reason?: string;
  /** Why a row that was not a crash went as it did: a constraint that blocked the keep, a guard, a pruned run. */
  readonly note?: string;
  /** A crash: the last lines of its run log (at most {@link LOG_TAIL_BYTES}); `loop_log` reads the whole log. */
  readonly logTail?: string;
  /** The iteration's kept run log, relative to the workspace (`.loop/logs/<n>.log`), when there is one. */
  readonly log?: string;
  /** Set only when the loop stopped after this step (a stop policy, `loop_stop`, a halt): why. */
  readonly stop?: { readonly reason: string; readonly message?: string };
  /**
   * What was repaired or rescued when the loop was (re)opened on this step (a resume's repairs, a held edit put back).
   */
  readonly repairs?: readonly string[];
}
