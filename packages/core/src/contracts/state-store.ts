import type { IterationStatus, StatusCounts } from './iteration-record.js';
import { readJson, writeJsonAtomic } from '../files/state-file.js';
import type { SampleSummary } from '../stats/statistics.js';
import type { Direction, MaybePromise } from './types.js';

/** The phase a state write records. */
export type EnginePhase = 'running' | 'stopped' | 'failed';

/**
 * The engine's own state after a step, handed to a {@link StateStore}. Scores are full precision
 * (a results file may round them: resume takes `best` and `baseline` from here when `bestId` matches).
 */
export interface EngineState {
  /** Format version of this object. */
  readonly version: 1;
  /** `running` after an iteration, `stopped` after the stop sequence, `failed` on an error. */
  readonly status: EnginePhase;
  /** The last completed iteration (0 after the baseline). */
  readonly iteration: number;
  /** Which way scores improve. */
  readonly direction: Direction;
  /** The baseline score (the mean of its repeats), full precision. */
  readonly baseline: number;
  /** The best kept score, full precision. */
  readonly best: number;
  /** The id of the best kept state. */
  readonly bestId: string;
  /** Counts per status class, baseline excluded. */
  readonly counts: Readonly<StatusCounts>;
  /** Iterations since the last kept one. */
  readonly consecutiveNonImprovements: number;
  /** Crashes in a row. */
  readonly consecutiveCrashes: number;
  /** The last row's status class. */
  readonly lastStatus?: IterationStatus;
  /** The last row's label, when it has one. */
  readonly lastLabel?: string;
  /** The baseline's samples. */
  readonly baselineSamples: readonly number[];
  /** Their spread. */
  readonly baselineSpread?: SampleSummary;
  /** The incumbent's samples. */
  readonly incumbentSamples: readonly number[];
  /** ISO-8601 UTC start of this run. */
  readonly startedAt: string;
  /** ISO-8601 UTC time of this write. */
  readonly updatedAt: string;
  /** Set by the stop sequence: the stop reason code and message. */
  readonly stopReason?: string;
  /** The stop message. */
  readonly stopMessage?: string;
  /** Set when the loop halted: the row label (or error code) and note. */
  readonly halted?: { readonly status: string; readonly note: string; readonly code?: string };
  /** Set on `failed`: the error's code and message. */
  readonly error?: { readonly code: string; readonly message: string };
}

/**
 * Where the engine's state lives. `write` is the LAST write of every iteration and of the stop
 * sequence (seed 002: state.json written last, re-read to confirm); it must be atomic and throw
 * `LoopError` `STATE_WRITE_FAILED` when it cannot write. `read` returns what the last write stored
 * (or `undefined` when there is none); resume uses it to check the results log and restore full
 * precision. A preset maps {@link EngineState} onto its seed's own file.
 */
export interface StateStore {
  /** Used in errors and logs. */
  readonly name: string;
  /** The file, when there is one (named in `RESUME_MISMATCH`). */
  readonly path?: string;
  /** The last written state, or `undefined`. Throws only for an unreadable store. */
  readonly read: () => MaybePromise<EngineState | undefined>;
  /** Writes `state` atomically (and verified). @throws {LoopError} `STATE_WRITE_FAILED` */
  readonly write: (state: EngineState) => MaybePromise<void>;
}

/**
 * The default store: `path` holds the {@link EngineState} as JSON, written with `writeJsonAtomic`
 * (temp file, fsync, rename, directory fsync, re-read). A missing file reads as `undefined`.
 *
 * @throws {LoopError} from `read`: `STATE_CORRUPT` when the file is not valid JSON; from `write`:
 *   `STATE_WRITE_FAILED`.
 */
export function createJsonStateStore(path: string): StateStore {
  return {
    name: 'json',
    path,
    read: async () => {
      const data = (await readJson(path)) as EngineState | undefined;
      return data && typeof data === 'object' ? data : undefined;
    },
    write: (state) => writeJsonAtomic(path, state),
  };
}
