import type { Clock, Guard, KeepPolicy, LoopError, MaybePromise, StopPolicy } from '@loop/core';
import type { SnapshotRollback } from '@loop/rollback-snapshot';
import type { PassConfig } from './config.js';
import type { PassSummary } from './format.js';
import type { PassHarness, PassScore, Tier1Gates } from './pass-harness.js';
import type { ResultsRow } from './results-tsv.js';
import type { SafetyOptions } from './safety.js';

/** ONE focused edit (seed 002 loop step 2). */
export interface EditIdea {
  /** One line: what the edit does (the chat line's description). */
  readonly description: string;
  /** The mutable files it will touch (relative); only these are snapshotted. @default every mutable file */
  readonly files?: readonly string[];
  /** The `<short-kebab-of-the-idea>` for the snapshot name. @default slug of the description */
  readonly slug?: string;
  /**
   * Safety-critical flows the proposer knows the edit touches (matched against `safety.flows` with the touched files).
   */
  readonly flows?: readonly string[];
  /**
   * Set when the proposer finds the fix needs a new dependency, a framework migration or a secret
   * (seed 002 safety brakes: "stop and surface it — do not add it"): the pass stops (`needs-human`)
   * before anything is snapshotted or applied, and the stop summary surfaces `detail`.
   */
  readonly needsHuman?: { readonly kind: 'new-dependency' | 'framework-migration' | 'secret'; readonly detail: string };
}

/** What the proposer sees when it picks an idea (seed 002 loop step 1). */
export interface PlanContext {
  /** The iteration about to run. */
  readonly iteration: number;
  /** The best composite so far. */
  readonly best: number;
  /** The baseline composite. */
  readonly baseline: number;
  /** The mutable files. */
  readonly files: readonly string[];
  /** Every results.tsv row so far. */
  readonly rows: readonly ResultsRow[];
  /** Descriptions of this run's reverted, reverted-redtest and crash ideas, newest last: do not repeat them. */
  readonly recentReverted: readonly string[];
}

/** What `apply` may return: its own one-line account of the edit it made. */
export interface AppliedEdit {
  /** One line; blank or missing keeps the idea's description. */
  readonly description?: string;
}

/** What `apply` is told. */
export interface ApplyContext {
  /** The iteration. */
  readonly iteration: number;
  /** 0 for the apply, 1.. for internal refine rounds (function mode's `internal_rounds`). */
  readonly round: number;
  /** The number of apply/refine rounds this iteration (1 in design mode). */
  readonly rounds: number;
}

/**
 * Picks and applies one focused edit per iteration. `plan` runs before the pre-edit snapshot,
 * `apply` after it (seed 002 loop steps 2-4). Either throwing makes the iteration a `crash`.
 */
export interface AutoresearchProposer {
  /** Used in logs. */
  readonly name: string;
  /** Picks ONE focused edit; must not touch files. */
  readonly plan: (context: PlanContext) => MaybePromise<EditIdea>;
  /**
   * Applies (round 0) or refines (rounds 1..) the edit; edits only the mutable source. It may
   * return `{ description }`, one line saying what it did: that text replaces the idea's in the
   * results row (and in the "do not repeat" list), so a proposer with no real `plan` step still
   * logs what each edit was. Returning nothing keeps the idea's description.
   */
  readonly apply: (idea: EditIdea, context: ApplyContext) => MaybePromise<void | AppliedEdit>;
}

/** Reads the money spent so far by the whole pipeline run, in USD (the host feeds it). */
export interface CostMeter {
  /** USD spent so far. */
  readonly spentUsd: () => number;
}

/** Options of {@link runPass}. */
export interface RunPassOptions {
  /** Absolute workspace ({{WORKSPACE}}). */
  workspace: string;
  /** {{TASK_ID}}: names the run directory `.aid/pipeline/autoresearch/<TASK_ID>`. */
  taskId: string;
  /** The pass's resolved settings (`resolvePassConfig('design' | 'function', config.autoresearch)`). */
  config: PassConfig;
  /** The pass's fixed harness. */
  harness: PassHarness;
  /**
   * The harness's own files besides the rubric (absolute): the reflection tool script, the test
   * runner, fixtures. Seed 002: "Never edit the harness ... Modifying the harness makes the score
   * meaningless". They are fingerprinted at pass start and re-checked before every scoring; a
   * change halts the pass as `harness-tampered` (the edit rolled back unscored, never kept).
   * @default none
   */
  harnessFiles?: string[];
  /** Picks and applies one edit per iteration. */
  proposer: AutoresearchProposer;
  /**
   * The harness-defining files in a fixed order (criteria YAML, then `.claude/agents/reflection-agent.md`), absolute.
   */
  rubricFiles: string[];
  /** Explicit mutable files (relative). @default resolved from git status, read-only */
  files?: string[];
  /** The rollback. @default createSnapshotRollback({ workspace, runDir, files, clock }) */
  rollback?: SnapshotRollback;
  /** Cost brake: stop once `cost.spentUsd()` reaches `maxPerRunUsd` (`cost_limits.max_per_run_usd`). @default none */
  cost?: { meter: CostMeter; maxPerRunUsd: number };
  /** Human interrupt. */
  signal?: AbortSignal;
  /** Clock for the utc column and snapshot stamps. @default systemClock */
  clock?: Clock;
  /** Receives each chat line and the stop summary. @default discard */
  output?: (text: string) => void;
  /** Path of state.json, written last. @default `<workspace>/.aid/pipeline/state.json` */
  statePath?: string;
  /** Writes state.json (temp + rename + re-read). @default writeJsonAtomic from @loop/core */
  writeState?: (path: string, data: unknown) => Promise<void>;
  /**
   * The per-pass success condition. @default design: every dimension ≥ kpiTarget; function: composite ≥ kpiTarget with
   * every Tier-1 gate green
   */
  targetMet?: (best: PassScore, config: PassConfig) => boolean;
  /**
   * ASK before edits touching {{SAFETY_CRITICAL_FLOWS}}, respecting {{CRITICALITY_PROFILE}} (seed 002
   * safety brakes). An edit whose files or declared flows touch a listed flow is put to `safety.asker`
   * after `plan` and before the pre-edit snapshot; a refusal skips it (see {@link RefusedEdit}).
   * @default no flows: nothing is asked
   */
  safety?: SafetyOptions;
  /**
   * The keep rule, wrapped in the Tier-1 gates (`tier1Gates`: a green-to-red test is
   * `reverted-redtest` whatever this says). Any core `KeepPolicy` works here unchanged.
   * @default strictImprovement() (seed 002: strict improvement, equal scores revert)
   */
  keepPolicy?: KeepPolicy;
  /** More stop conditions, checked after seed 002's (any core `StopPolicy`). @default none */
  stop?: StopPolicy;
  /** More guards, run after the pass's own (any core `Guard`: a checks command, a review). @default none */
  guards?: Guard[];
}

/**
 * An edit skipped because a human refused it at the ASK-before-edit question. It is recorded like
 * any edit that did not stay (seed 002: results.tsv is the source of truth and its statuses are
 * kept | reverted | reverted-redtest | crash | restore-failed): a `reverted` row with composite `-`
 * and snapshot `-` (nothing was snapshotted or touched), one chat line naming the refusal, an entry
 * in the reverted ideas the proposer is told not to repeat, and `refused_edits` in state.json. It
 * counts toward max_consecutive_reverts, so a proposer that keeps proposing refused edits still
 * terminates.
 */
export interface RefusedEdit {
  /** The iteration. */
  readonly iter: number;
  /** The edit's description. */
  readonly description: string;
  /** The safety-critical flows it touched. */
  readonly flows: readonly string[];
  /** The files it would have touched. */
  readonly files: readonly string[];
  /** Why it was refused. */
  readonly reason: string;
}

/**
 * Function mode's re-check of the restored best on resume: results.tsv holds the best composite and
 * dimensions but not the Tier-1 gate results, so the harness re-scores the restored best once before
 * the first iteration and the target-met check uses these gates (never assumed green).
 */
export interface ResumeCheck {
  /** The gates measured on the restored best (absent when the re-score crashed: target not met). */
  readonly gates?: Tier1Gates;
  /** The composite the re-score gave (informational: best_score stays max(kept composite) from results.tsv). */
  readonly composite?: number;
  /** The re-score's error message, when it crashed. */
  readonly error?: string;
}

/** What {@link runPass} returns. */
export interface PassResult extends PassSummary {
  /** The stop summary text that was printed. */
  readonly summaryText: string;
  /** Absolute path of results.tsv. */
  readonly resultsPath: string;
  /** Absolute path of state.json. */
  readonly statePath: string;
  /** The kept id (snapshot directory) the workspace was restored to. */
  readonly bestId: string;
  /** Iterations run in this call (baseline excluded). */
  readonly iterationsThisRun: number;
  /** True when results.tsv had data rows (no re-baseline). */
  readonly resumed: boolean;
  /** The error behind `halted`, when the pass halted. */
  readonly error?: LoopError;
  /** Edits refused at the ASK-before-edit question in this call. */
  readonly refusedEdits: readonly RefusedEdit[];
  /** Function mode on resume: the Tier-1 gates re-measured on the restored best. */
  readonly resumeCheck?: ResumeCheck;
  /** The Tier-1 gates of the best version, when known (written to state.json as `best_gates`). */
  readonly bestGates?: Tier1Gates;
}

/** The default per-pass success condition (seed 002 Stop conditions: target met). */
export function defaultTargetMet(best: PassScore, config: PassConfig): boolean {
  if (config.mode === 'function')
    return best.composite >= config.kpiTarget && !!best.gates?.testsGreen && !!best.gates.coverageOk;
  const values = Object.values(best.dimensions);
  return values.length > 0 && values.every((v) => v >= config.kpiTarget);
}
