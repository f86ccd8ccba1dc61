import type { LoopEvent, LoopEventOf, LoopEventType } from '../contracts/events.js';
import type { EditPlan } from '../contracts/proposer.js';
import type { LoopSummary } from '../contracts/summary.js';
import { createEngine } from './engine.js';
import type { LoopOptions } from './options.js';
import { createSession } from './session.js';
import type { StepOutcome, Trial, TrialEdit } from './trial.js';

/**
 * A configured loop. `run()` is a loop over `step()`; a host that makes its own edits drives the
 * same step with `ask()` and `tell()` (Optuna's ask/tell). Whichever drives it, the first call
 * takes the lock (`lockPath`) and resumes from the results log or measures the baseline; every
 * step writes its row before the rollback acts and the state store last, then emits its events;
 * the stop policies are checked after each step, and when one fires the stop sequence runs
 * (restore the best state, `onStop`, the last state write, `stopped`) and the lock is released.
 * One call at a time: a call while another is in flight throws `TRIAL_OPEN`.
 */
export interface Loop {
  /**
   * Runs until a stop policy fires, a guard halts or the signal aborts, then runs the stop
   * sequence. Resumes when the results log already has rows.
   *
   * A halt that is an error (a failed restore, a tampered harness) still runs the stop sequence
   * and writes its state, then throws with `error.details.summary` set.
   *
   * @throws {LoopError} `BASELINE_FAILED` (the baseline crashed), `LOCK_HELD`, `RESTORE_FAILED`
   *   (the workspace could not be restored, or a parallel batch's winner could not be adopted and
   *   verified), `STATE_WRITE_FAILED`, `HARNESS_TAMPERED`, `RESULTS_CORRUPT`, `RESUME_MISMATCH`,
   *   `STATE_CORRUPT`, `TRIAL_OPEN`, `LOOP_STOPPED`, `CONFIG_INVALID` (no proposer), and the
   *   rollback's own codes.
   */
  readonly run: () => Promise<LoopSummary>;
  /**
   * One iteration (a batch of K with `parallel`) with the configured proposer, then the stop
   * policies. @throws {LoopError} as `run()`.
   */
  readonly step: () => Promise<StepOutcome>;
  /**
   * Opens ONE candidate for a host to edit: runs the `beforeEdit` guards and takes the checkpoint
   * (with `plan`, so a snapshot rollback copies only `plan.files`). A candidate a guard decides
   * before the edit is recorded as `step()` would, and the next one is opened. Always in place,
   * also with `parallel`.
   *
   * @throws {LoopError} `TRIAL_OPEN` (a trial is open), `LOOP_STOPPED` (with `details.summary`),
   *   and on the first call whatever `run()` throws at start (`LOCK_HELD`, `BASELINE_FAILED`, ...).
   */
  readonly ask: (options?: { plan?: EditPlan }) => Promise<Trial>;
  /**
   * Evaluates the open trial's edit exactly as a proposer's: the record, the `beforeRun` guards,
   * the harness (fingerprint first), the scorer, the keep policy, the row, keep or revert, the
   * state, the events, then the stop policies. An edit that changed nothing is a `(no change: not
   * evaluated)` row; no crash repairs are asked for (the host repairs with the crash row in hand).
   *
   * @throws {LoopError} `TRIAL_UNKNOWN` (not the open trial: never asked, told twice, another
   *   loop's), `EDIT_OUTSIDE_ARTIFACT` (the edit changed a path outside the artifact's mutable
   *   surface: nothing recorded, the trial stays open), `LOOP_STOPPED`, and as `run()`.
   */
  readonly tell: (trial: Trial, edit: TrialEdit) => Promise<StepOutcome>;
  /**
   * Stops the loop: rolls an open trial back (no row), then runs the stop sequence with reason
   * `host` and `message`. Idempotent: returns the summary of a loop that already stopped, and
   * `undefined` for one that never started.
   */
  readonly stop: (message?: string) => Promise<LoopSummary | undefined>;
  /** Subscribes to one event type; returns the unsubscribe function. */
  readonly on: <T extends LoopEventType>(type: T, handler: (event: LoopEventOf<T>) => void) => () => void;
  /** Iterates events from now until the loop stops. */
  readonly events: () => AsyncIterableIterator<LoopEvent>;
}

/**
 * Creates a keep/revert loop: the one engine every preset configures. One iteration: plan →
 * guards (before edit) → checkpoint → proposer (or host) edits → read-only check → rollback.commit
 * → guards (before run) → harness (fingerprint re-checked first) → scorer → keep policy → guards
 * (after score) → results row appended and flushed → keep or revert (verified) → state store (last
 * write) → events → stop policies. A parallel batch runs K candidates through the same path in
 * working copies.
 *
 * @throws {ConfigError} `CONFIG_INVALID` naming the invalid option (`engine.<field>`), checked by
 *   `loopOptionsSchema`.
 *
 * @example
 * const loop = createLoop({ proposer, harness, scorer, rollback, stop: anyOf(maxIterations(20), plateau(5)) });
 * loop.on('kept', (e) => console.log('kept', e.record.description));
 * const summary = await loop.run();
 */
export function createLoop(options: LoopOptions): Loop {
  const e = createEngine(options);
  const session = createSession(e);
  return {
    run: session.run,
    step: session.step,
    ask: session.ask,
    tell: session.tell,
    stop: session.stop,
    on: (type, handler) => e.hub.on(type, handler),
    events: () => e.hub.iterate(),
  };
}
