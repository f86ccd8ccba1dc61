import type { MaybePromise } from '@loop/core';
import type { LoopStateFile } from './loop-state-file.js';
import type { Scoreboard } from './scoreboard.js';

/** Priority of an evaluation task; only high and medium block stop_success (seed 004). */
export type TaskPriority = 'high' | 'medium' | 'low';

/** What the round worker sees at each step. Read-only snapshots taken at the start of the round. */
export interface RoundContext {
  /** The round number, from 1 (`last_round.round + 1`). */
  readonly round: number;
  /** The app repository root (absolute). */
  readonly dir: string;
  /** loop_state.json as it was after the controller marked the run auto / running. */
  readonly state: LoopStateFile;
  /** scoreboard.json at the start of the round: use it to pick targets and retries. */
  readonly scoreboard: Scoreboard;
  /** Task ids already in the exclusions file (cannot_handle_group.txt): do not target them. */
  readonly excluded: readonly string[];
}

/** The result of the worker's code-change step (the /autotune Step 1). */
export interface RoundPlan {
  /** One line describing the code changes; goes into the commit message and the changelog. */
  summary: string;
  /**
   * The targeted improvements: ids of the failing tasks this round tries to fix. Empty means no actionable fixes
   * remain.
   */
  targets: string[];
  /** Whether code changed; false skips the code commit. @default true */
  changed?: boolean;
}

/** One task's pass/fail result from the evaluation. */
export interface TaskResult {
  /** The task id (the same ids as {@link RoundPlan.targets} and the exclusions file). */
  id: string;
  /** Whether its check passed. */
  passed: boolean;
  /** Only high and medium failures block stop_success (seed 004). @default 'high' */
  priority?: TaskPriority;
  /** A short failure detail for the scoreboard and the parked rationale. */
  detail?: string;
}

/** The result of the worker's evaluation step. */
export interface RoundEvaluation {
  /** Every task of the evaluation set, excluded ones included. */
  tasks: TaskResult[];
  /** Why a task is out of reach, by task id; used in issues.md when it is parked. */
  rationales?: Record<string, string>;
}

/**
 * The injected round worker (seed 004: "/autotune: one round worker"). The controller calls
 * `improve`, commits the code, runs the sync check, then calls `evaluate` once, all within one
 * loop iteration. A worker keeps no state between calls: everything it needs is in the context
 * (state lives only in the files, so the next round may run in another process). The controller
 * journals each result (core step machine), so a restarted iteration resumes after the last
 * recorded step instead of asking again.
 */
export interface RoundWorker {
  /** Used in errors and logs. */
  readonly name: string;
  /**
   * Makes this round's code changes in the app repository and says what it targeted. Called once
   * per round; after a kill that interrupted it before its result was recorded, called again for
   * the same round with the same context (the scoreboard as it was before the round), seeing the
   * working tree as the interrupted call left it. Once its result is recorded it is never called
   * again for that round.
   */
  readonly improve: (context: RoundContext) => MaybePromise<RoundPlan>;
  /**
   * Evaluates the current code (after the sync check passed). Called once per round (again only when a kill interrupted
   * it before its result was recorded).
   */
  readonly evaluate: (context: RoundContext & { readonly plan: RoundPlan }) => MaybePromise<RoundEvaluation>;
}
