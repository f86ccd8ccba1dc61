import type { Advisor } from '../contracts/advisor.js';
import type { Artifact } from '../contracts/artifact.js';
import type { Guard } from '../contracts/guard.js';
import type { Harness } from '../contracts/harness.js';
import type { KeepPolicy } from '../contracts/keep-policy.js';
import type { CostReading } from '../contracts/loop-state.js';
import type { ParallelOptions } from './parallel-options.js';
import type { Proposer } from '../contracts/proposer.js';
import type { PruneOptions } from './run-reporting.js';
import type { ResultsLog } from '../contracts/results-log.js';
import type { RollbackStrategy } from '../contracts/rollback-strategy.js';
import type { Scorer } from '../contracts/scorer.js';
import type { SeedOnlyDetector } from '../artifacts/seed-only.js';
import type { StateStore } from '../contracts/state-store.js';
import type { StopPolicy } from '../contracts/stop-policy.js';
import type { LoopSummary } from '../contracts/summary.js';
import type { LoopState } from '../contracts/loop-state.js';
import type { Clock, MaybePromise } from '../contracts/types.js';

/**
 * `files` of {@link LoopOptions}: where the loop writes besides the results log.
 */
export interface LoopFileOptions {
  /**
   * Path of state.json, written atomically as the last write of every iteration (`createJsonStateStore(statePath)`).
   * @default none
   */
  statePath?: string;
  /**
   * Path of the file to lock (a `<path>.lock` directory is the lock) so two loops never share a workspace. @default
   * none
   */
  lockPath?: string;
  /**
   * A JSONL file that gets one line per decision: the baseline's samples and spread, then per
   * evaluated candidate its status, samples, the decision's reason and evidence, and `seedOnly`.
   * results.tsv keeps its columns. Appended and flushed per line. @default none
   */
  decisionsLogPath?: string;
}

/** `run` of {@link LoopOptions}: how a candidate's evaluation runs. */
export interface LoopRunOptions {
  /**
   * How many times the baseline is evaluated to measure the noise floor. Each sample is recorded
   * (the `baseline` event, state.json, the decisions log); the baseline score is their mean and the
   * `baseline` event carries their spread (sd and MAD). A crash in any repeat is `BASELINE_FAILED`.
   * @default 1
   */
  baselineRepeats?: number;
  /**
   * The seed passed to the harness (`RunContext.seed`, the command harness's `LOOP_SEED`) for
   * repeat `repeat` (0 = a state's first run, 1.. = re-runs). Vary it to measure seed noise, for
   * example `(r) => 1000 + r`. @default () => seed
   */
  seedForRepeat?: (repeat: number) => number;
  /** The fixed seed used when `seedForRepeat` is not given. @default 0 */
  seed?: number;
}

/** `keep` of {@link LoopOptions}: what may be kept. */
export interface LoopKeepOptions {
  /** The keep rule. @default strictImprovement() (equal scores revert) */
  policy?: KeepPolicy;
  /**
   * Checks around each candidate (before the edit, before the run, after a keepable score) that
   * can skip it, reject it, block its keep or halt the loop with a status and a note; see
   * {@link Guard}. Run in order; the first verdict wins. @default []
   */
  guards?: Guard[];
  /**
   * Detects proposals that only change a random seed (see {@link SeedOnlyDetector},
   * `createJsonSeedOnlyDetector`, `createSeedOnlyDetector`, `createMemorySeedOnlyDetector`); they
   * are flagged ` (seed-only change)` in the row description and `seedOnly: true` in the event and
   * the keep input, and are never kept whatever the keep policy decides (issue 17: a lucky seed is
   * not an improvement); each is evaluated at most once (the noise-aware policy does not re-sample
   * it). @default none
   */
  seedOnlyDetector?: SeedOnlyDetector;
  /**
   * Never evaluates a candidate whose artifact content equals a tree already evaluated in this
   * session (the baseline, the resumed incumbent, any candidate, also within a parallel batch):
   * its row is `reverted` with ` (duplicate of iteration N: not evaluated)` and it gets no record
   * of its own. Seed 001: a discarded change is never retried verbatim. Needs `artifact`.
   * @default false (the core stays neutral; auto-iterate turns it on)
   */
  skipDuplicates?: boolean;
}

/** `recovery` of {@link LoopOptions}: what happens after a crash. */
export interface LoopRecoveryOptions {
  /** Repair attempts for a crashed candidate within the same iteration (seed 003: at most 2). @default 0 */
  maxRepairAttempts?: number;
  /** Consecutive proposer failures (each a crash row) before the loop stops with `proposer-failing`. @default 5 */
  maxProposerFailures?: number;
}

/**
 * Options of {@link createLoop}: the contracts at the top level, the rest in a few groups
 * (`files`, `run`, `keep`, `recovery`, `parallel`, `prune`), the way TanStack Query groups its
 * options. The old flat names (`keepPolicy`, `guards`, `statePath`, ...) still work for one
 * version: each is marked `@deprecated` with its new place; giving both is `CONFIG_INVALID`.
 *
 * @example
 * createLoop({
 *   proposer, harness, scorer, rollback,
 *   stop: anyOf(maxIterations(20), plateau(5)),
 *   files: { statePath: '.loop/state.json', lockPath: '.loop/workspace' },
 *   run: { baselineRepeats: 5 },
 *   keep: { policy: createNoiseAwareKeepPolicy(), skipDuplicates: true },
 *   recovery: { maxRepairAttempts: 2 },
 * });
 */
export interface LoopOptions extends DeprecatedFlatLoopOptions {
  /**
   * Produces one edit per iteration for `run()` and `step()`. A host that makes its own edits
   * through `ask()` / `tell()` may leave it out. @default none
   */
  proposer?: Proposer;
  /** Runs the fixed evaluation. */
  harness: Harness;
  /** Turns a run into a score; its `direction` is the loop's. */
  scorer: Scorer;
  /** Undoes discarded changes. */
  rollback: RollbackStrategy;
  /** The mutable surface; when given, a change outside `artifact.mutable` is `rejected` unevaluated. */
  artifact?: Artifact;
  /** When to stop; the abort signal always stops too. @default neverStop() */
  stop?: StopPolicy;
  /** Where rows go; rows found at start mean resume (no new baseline). @default an in-memory log */
  results?: ResultsLog;
  /**
   * Where the engine's state goes instead of `files.statePath`'s JSON file: a preset's own state file
   * (seed 002's `.aid/pipeline/state.json`). Always the last write of a step. @default
   * createJsonStateStore(files.statePath) when it is set, else none
   */
  stateStore?: StateStore;
  /** Where the loop writes besides the results log: state.json, the lock, the decisions log. @default none */
  files?: LoopFileOptions;
  /** How a candidate's evaluation runs: baseline repeats, the seeds. @default 1 baseline run, seed 0 */
  run?: LoopRunOptions;
  /**
   * What may be kept: the keep policy, guards, seed-only detection, duplicates.
   * @default strict improvement, nothing else
   */
  keep?: LoopKeepOptions;
  /**
   * What happens after a crash: repair attempts, proposer failures.
   * @default no repair, stop after 5 proposer failures
   */
  recovery?: LoopRecoveryOptions;
  /**
   * Stops doomed runs early (issue 27): `pruners` look at each intermediate report
   * (`RunContext.report`) of a candidate's first evaluation; the first verdict aborts the run, and
   * the candidate is reverted as a discard (status `reverted`, score = the last reported value,
   * `data.pruned`), never a crash. The baseline and a keep policy's re-samples are never pruned.
   * @default none (every run goes to its end)
   */
  prune?: PruneOptions;
  /** Reads the run's spend so far (USD, tokens) for `LoopState.cost` and `costBudget`. @default none */
  cost?: () => CostReading;
  /**
   * The labels the engine writes on rows it halts on. @default { restoreFailed: 'restore-failed', harnessTampered:
   * 'harness-tampered' }
   */
  statusNames?: { restoreFailed?: string; harnessTampered?: string };
  /** Advisors whose hints reach the next proposal (seed 001's circuit breaker). @default [] */
  advisors?: Advisor[];
  /** The clock for durations and wall-clock budgets. @default systemClock */
  clock?: Clock;
  /** Aborting stops the loop after restoring the last kept state (Ctrl-C). */
  signal?: AbortSignal;
  /**
   * Parallel candidates: each step proposes and evaluates K candidates at once, each in its own
   * working copy (see {@link ParallelOptions}), and keeps the best one that passes the keep policy
   * against the incumbent. Every candidate is a results row with its own iteration number; the
   * others are reverted (a passing one with ` (not the best of the batch)`). The main workspace is
   * touched only to adopt the winner. The proposer must edit `context.artifact` (the copy), not a
   * captured artifact. Stop policies are checked between batches, so a batch may run past
   * `maxIterations` by up to K − 1 rows. Repairs and seed-only detection work per candidate, in
   * its copy. @default none: one candidate at a time, in place
   */
  parallel?: ParallelOptions;
  /**
   * Called once when the loop stops, after the best kept state was restored and before the state
   * store's last write, with the summary and the final loop state: where a preset writes what its
   * seed asks for at the end of a run (seed 002's pass result). A throw is the run's error (the
   * state is written `failed`). @default none
   */
  onStop?: (summary: LoopSummary, state: LoopState) => MaybePromise<void>;
}

/** The flat option names of {@link LoopOptions} before the groups; each works for one more version. */
export interface DeprecatedFlatLoopOptions {
  /** @deprecated Use `keep.policy`. */
  keepPolicy?: KeepPolicy;
  /** @deprecated Use `keep.guards`. */
  guards?: Guard[];
  /** @deprecated Use `keep.seedOnlyDetector`. */
  seedOnlyDetector?: SeedOnlyDetector;
  /** @deprecated Use `keep.skipDuplicates`. */
  skipDuplicates?: boolean;
  /** @deprecated Use `files.statePath`. */
  statePath?: string;
  /** @deprecated Use `files.lockPath`. */
  lockPath?: string;
  /** @deprecated Use `files.decisionsLogPath`. */
  decisionsLogPath?: string;
  /** @deprecated Use `run.baselineRepeats`. */
  baselineRepeats?: number;
  /** @deprecated Use `run.seedForRepeat`. */
  seedForRepeat?: (repeat: number) => number;
  /** @deprecated Use `run.seed`. */
  seed?: number;
  /** @deprecated Use `recovery.maxRepairAttempts`. */
  maxRepairAttempts?: number;
  /** @deprecated Use `recovery.maxProposerFailures`. */
  maxProposerFailures?: number;
}

/** {@link LoopOptions} in the grouped shape only: what the engine reads. */
export type GroupedLoopOptions = Omit<LoopOptions, keyof DeprecatedFlatLoopOptions>;
