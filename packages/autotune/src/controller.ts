import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { LoopError, parseOptions } from '@loop/core';
import {
  autotuneControllerOptionsSchema,
  runControllerOptionsSchema,
  type AutotuneControllerOptions,
  type RunControllerOptions,
} from './autotune-options.js';
import { noCommits } from './committer.js';
import { createIterationMachine } from './internal/iteration-machine.js';
import { initialLoopStateFile, readLoopStateFile, writeLoopStateFile, type LoopStateFile } from './loop-state-file.js';
import { resolveAutotunePaths, type AutotunePaths } from './paths.js';
import { emptyScoreboard, readScoreboard, writeScoreboard } from './scoreboard.js';
import { noSyncCheck } from './sync-check.js';

/** How an iteration ended. */
export type IterationOutcome =
  /** loop_state.json already said `complete`: nothing ran, nothing was written (seed 004 step 2). */
  | 'already-complete'
  /** This iteration's round recommended stop_success or stop_exhausted and the state is now complete (step 6). */
  | 'completed'
  /** The round recommended continue: run the next iteration, in this process or another (step 7). */
  | 'continue';

/** The result of {@link runControllerIteration}. */
export interface IterationResult {
  /** How the iteration ended. */
  outcome: IterationOutcome;
  /** The round this iteration ran, or null when it ran none. */
  round: number | null;
  /** loop_state.json as it is on disk at the end of the iteration. */
  state: LoopStateFile;
  /** A one-line report for a human (the library prints nothing). */
  report: string;
}

/** The result of {@link runController}. */
export interface RunControllerResult {
  /** Every iteration's result, in order. */
  iterations: IterationResult[];
  /** The last one; `final.outcome === 'continue'` means `maxIterations` was reached first. */
  final: IterationResult;
}

/** Options of {@link initAutotune}. */
export interface InitAutotuneOptions {
  /** The app repository root (absolute). */
  dir: string;
  /** The artifact workspace (absolute). @default dir */
  artifactDir?: string;
  /** Overrides of the seed's file locations. @default the seed's paths */
  paths?: Partial<AutotunePaths>;
}

const initOptionsSchema = autotuneControllerOptionsSchema.pick({ dir: true, artifactDir: true, paths: true });

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Creates the control files a run needs when they are absent: loop_state.json (`mode: manual`,
 * `status: idle`, `last_round: null`, `stop_reason: null`) and an empty scoreboard.json. Existing
 * files are validated and left untouched.
 *
 * @returns the resolved paths and the files it created.
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options.
 * @throws {LoopError} `STATE_CORRUPT` naming the file and field when an existing file is malformed
 *   (nothing is written); `STATE_WRITE_FAILED` when a write fails.
 */
export async function initAutotune(options: InitAutotuneOptions): Promise<{ paths: AutotunePaths; created: string[] }> {
  const opts = parseOptions(initOptionsSchema, options, 'autotune');
  const paths = resolveAutotunePaths(opts.dir, opts.artifactDir, opts.paths);
  const haveState = await exists(paths.loopState);
  const haveBoard = await exists(paths.scoreboard);
  if (haveState) await readLoopStateFile(paths.loopState);
  if (haveBoard) await readScoreboard(paths.scoreboard);
  const created: string[] = [];
  if (!haveBoard) {
    await writeScoreboard(paths.scoreboard, emptyScoreboard());
    created.push(paths.scoreboard);
  }
  if (!haveState) {
    await writeLoopStateFile(paths.loopState, initialLoopStateFile());
    created.push(paths.loopState);
  }
  return { paths, created };
}

/**
 * One loop iteration of the autotune-loop controller (seed 004 "Loop"), usable as one process per
 * iteration because every fact it needs is in the files. It runs on core's step machine (steps
 * enter, improve, evaluate or record-stale, record, commit-artifacts, complete), so a kill at any
 * point followed by another call finishes the same iteration with each write and commit made
 * exactly once:
 *
 * 1. Read loop_state.json (and scoreboard.json), validated; a malformed or missing file throws
 *    before anything is written.
 * 2. If `status` is `complete`, report completion and return (`already-complete`). If
 *    `last_round.recommended_action` is `stop_success` / `stop_exhausted` (a previous process
 *    stopped before step 6), go to step 6 without running a round.
 * 3. Mark the run `mode: auto`, `status: running` before delegating.
 * 4. Run exactly one orchestrated round: the worker's code changes (given the scoreboard as it was
 *    before this round, even when the round runs again), the code commit
 *    (`feat(agent): autotune round N — <summary>`), the sync check (a failure aborts the round as
 *    stale), the evaluation, the scoreboard, the stop criteria, the exclusions and issues.md when
 *    exhausted, one changelog entry, `last_round` in loop_state.json, the artifacts commit.
 * 5. Re-read loop_state.json from disk.
 * 6. If `last_round.recommended_action` is `stop_success` or `stop_exhausted`: set `status:
 *    complete`, persist `stop_reason` (`<action>: <reason>`), commit it, return (`completed`).
 * 7. Otherwise return normally (`continue`) so the next iteration can continue.
 *
 * The workspace is locked (core `acquireLock` on loop_state.json) for the iteration.
 *
 * @throws {ConfigError} `CONFIG_INVALID` for invalid options.
 * @throws {LoopError} `STATE_CORRUPT` naming the file and field (loop_state.json or scoreboard.json
 *   missing, not JSON, or malformed, or a bad step cursor / journal; nothing is overwritten);
 *   `RESUME_MISMATCH` when the step directory holds an unfinished iteration of a round that
 *   loop_state.json cannot be at (another run's; nothing is written);
 *   `STATE_WRITE_FAILED` when a write or a git commit fails; `LOCK_HELD` when another iteration
 *   holds the workspace; `PROPOSER_FAILED` / `HARNESS_FAILED` when the worker's improve / evaluate
 *   throws or returns an invalid result (loop_state.json keeps the previous last_round, so the next
 *   iteration runs the round again).
 */
export async function runControllerIteration(options: AutotuneControllerOptions): Promise<IterationResult> {
  const opts = parseOptions(autotuneControllerOptionsSchema, options, 'autotune');
  const paths = resolveAutotunePaths(opts.dir, opts.artifactDir, opts.paths);
  // Validate both control files before taking the lock, so a broken workspace gets no writes at all.
  const state = await readLoopStateFile(paths.loopState);
  await readScoreboard(paths.scoreboard);
  const machine = createIterationMachine({
    dir: opts.dir,
    paths,
    stepDir: opts.stepDir ?? resolve(opts.artifactDir ?? opts.dir, 'projects/autotune/run'),
    worker: opts.worker,
    syncCheck: opts.syncCheck ?? noSyncCheck(),
    committer: opts.committer ?? noCommits(),
    clock: opts.clock,
    maxFailedAttempts: opts.maxFailedAttempts,
    lockStaleMs: opts.lockStaleMs,
    hooks: opts.stepHooks,
  });
  const cursor = await machine.cursor();
  // Complete and nothing left unfinished: report without writing anything (seed 004 step 2).
  if (state.status === 'complete' && (cursor?.step ?? null) === null) {
    return {
      outcome: 'already-complete',
      round: null,
      state,
      report:
        `autotune loop complete after ` +
        `round ${state.last_round?.round ?? 0}: ${state.stop_reason ?? '(no stop reason recorded)'}`,
    };
  }
  // An unfinished iteration of round N is consistent only with last_round N - 1 (not yet written) or N.
  const pending = cursor?.step === null ? null : (cursor?.data.round ?? null);
  const lastRound = state.last_round?.round ?? 0;
  if (pending !== null && lastRound !== pending - 1 && lastRound !== pending) {
    throw new LoopError(
      'RESUME_MISMATCH',
      `[loop] [autotune] ${machine.cursorPath} holds an unfinished iteration ` +
        `of round ${pending}, but ${paths.loopState} says the last round ` +
        `is ${lastRound}: the step directory belongs to another run; if no ` +
        `iteration is running, delete ${dirname(machine.cursorPath)} and run ` +
        `again`,
      { details: { cursor: machine.cursorPath, cursorRound: pending, lastRound } },
    );
  }
  const { data } = await machine.run(() => ({ at: '', round: null }));
  const end = data.end!;
  return {
    outcome: end.outcome,
    round: end.outcome === 'already-complete' ? null : data.round,
    state: end.state,
    report: end.report,
  };
}

/**
 * Runs iterations in this process until loop_state.json says complete or `maxIterations`
 * iterations ran. Each iteration is exactly {@link runControllerIteration}: the same files, the same
 * end state as one process per iteration.
 *
 * @throws the errors of {@link runControllerIteration}; `CONFIG_INVALID` for invalid options.
 */
export async function runController(options: RunControllerOptions): Promise<RunControllerResult> {
  const { maxIterations } = parseOptions(runControllerOptionsSchema, options, 'autotune');
  const iterations: IterationResult[] = [];
  for (let i = 0; i < maxIterations; i += 1) {
    const result = await runControllerIteration(options);
    iterations.push(result);
    if (result.outcome !== 'continue') break;
  }
  return { iterations, final: iterations[iterations.length - 1]! };
}
