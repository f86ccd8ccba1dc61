import type { CandidateData } from './iteration-record.js';
import type { MaybePromise } from './types.js';

/** What the engine tells the harness about the run it asks for. */
export interface RunContext {
  /** The iteration being evaluated (0 = baseline). */
  readonly iteration: number;
  /**
   * Aborted when the loop is stopped (Ctrl-C) or a pruner stops this run early: the harness must
   * kill its run and return.
   */
  readonly signal: AbortSignal;
  /**
   * The random seed the run should use (the loop's `seedForRepeat(repeat)`; a fixed seed by
   * default). The command harness passes it as `LOOP_SEED`. Always set by the engine.
   */
  readonly seed?: number;
  /**
   * Which repeat of the same state this run is: 0 for the first evaluation, 1, 2, ... for the
   * re-runs a noise-aware keep policy or `baselineRepeats` ask for. Always set by the engine.
   */
  readonly repeat?: number;
  /**
   * Reports an intermediate value while the run goes on (a training curve's point: `step` in the
   * run's own progress unit, increasing; `value` in the objective's units). The reports become the
   * candidate's `data.reports`, a `report` event each, and what the loop's pruners look at: one may
   * abort `signal` to stop a doomed run early (issue 27). Always set by the engine; a no-op where no
   * one listens.
   */
  readonly report?: (step: number, value: number) => void;
}

/**
 * The record of one evaluation run. A crash or timeout is data here, never an exception: the
 * scorer turns it into a `crash` row.
 */
export interface RunRecord {
  /** Exit code of the command, or `null` when it was killed by a signal (or there was no command). */
  readonly exitCode: number | null;
  /** The signal that ended the command (`SIGTERM`, `SIGKILL`), or `null`. */
  readonly signal: string | null;
  /** True when the hard kill timeout fired and the process tree was killed. */
  readonly timedOut: boolean;
  /** Wall time of the run in ms. */
  readonly durationMs: number;
  /** Absolute path of the run's log file (stdout and stderr), if there is one. */
  readonly logPath?: string;
  /** A score the harness computed itself (function harnesses); scorers may read it instead of a log. */
  readonly value?: number;
  /** Named scores (per-dimension or per-instance) the harness computed itself. */
  readonly dimensions?: Readonly<Record<string, number>>;
  /** Why the run failed when it failed for a reason other than the exit code (an exception message). */
  readonly error?: string;
  /** Facts for the candidate's record (its intermediate reports, named metrics). @default none */
  readonly data?: CandidateData;
}

/**
 * The fixed evaluation. It runs for the artifact's current state and returns a {@link RunRecord}.
 * It owns its timeouts and kills the whole process tree on timeout or abort.
 */
export interface Harness {
  /** Used in errors and logs. */
  readonly name: string;
  /** Runs one evaluation. Must not throw for a failing candidate: report it in the record. */
  readonly run: (context: RunContext) => MaybePromise<RunRecord>;
  /**
   * A hash of the bytes that define the evaluation (its command, scripts, data). The engine
   * records it at start and re-checks it before every run; a change is `HARNESS_TAMPERED`.
   */
  readonly fingerprint?: () => MaybePromise<string>;
  /**
   * Called when a candidate's proposal is in (and before each repair attempt), before the edit is
   * inspected and committed (issue 31): `run` usually follows (not when the candidate is refused
   * first: no change, an edit outside the artifact, a guard), so slow set-up can overlap that work.
   * Not called for the baseline. Not awaited; a throw or a rejected promise is ignored. Must not
   * touch the workspace. The command harness warms the kernel's cgroup migration here
   * (docs/safety.md, "What the per-run cgroup costs").
   */
  readonly prepare?: (context: { readonly iteration: number }) => void;
}
