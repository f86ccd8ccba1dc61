import type { Clock, MaybePromise } from '@loop/core';
import type { AcceptanceDecision, AcceptanceEscalation, AcceptanceEvaluation, DevelopRequest } from './acceptance.js';
import type { PassConfig } from './config.js';
import type { CostMeter } from './pass-options.js';

/** Options of {@link runAcceptance}. */
export interface RunAcceptanceOptions {
  /** Absolute workspace. */
  workspace: string;
  /** {{TASK_ID}}. */
  taskId: string;
  /** `resolvePassConfig('acceptance', config.autoresearch)`. */
  config: PassConfig;
  /**
   * Runs the validators and the reflection agent on the delivery as it is now. Throwing is a `crash` round and stops
   * AR-3.
   */
  evaluate: (context: { round: number; signal: AbortSignal }) => Promise<AcceptanceEvaluation>;
  /** The orchestrator's DEVELOP re-entry (injected): fix the open blockers, then return; AR-3 evaluates again. */
  develop: (request: DevelopRequest) => MaybePromise<void>;
  /** Escalation to the user (injected): called once, with the open blockers, when the cap is reached. */
  escalate: (escalation: AcceptanceEscalation) => MaybePromise<void>;
  /**
   * Harness-defining files in a fixed order; fingerprinted at start and re-checked before every evaluation. @default
   * none
   */
  rubricFiles?: string[];
  /** Cost brake (`cost_limits.max_per_run_usd`). @default none */
  cost?: { meter: CostMeter; maxPerRunUsd: number };
  /** Human interrupt. */
  signal?: AbortSignal;
  /** Clock for the utc column. @default systemClock */
  clock?: Clock;
  /** Receives each round's chat line and the stop summary. */
  output?: (line: string) => void;
  /** Path of state.json, written last. @default `<workspace>/.aid/pipeline/state.json` */
  statePath?: string;
  /** Writes state.json. @default writeJsonAtomic */
  writeState?: (path: string, data: unknown) => Promise<void>;
  /** Source files (relative) state.json's mtime must not be older than (DEVELOP edits them). @default [] */
  files?: string[];
}

/** What {@link runAcceptance} returns. */
export interface AcceptanceResult {
  /** `target-met` (DONE), `escalated`, `cost-brake`, `aborted`, `rubric-tampered` or `crash`. */
  readonly stopReason: 'target-met' | 'escalated' | 'cost-brake' | 'aborted' | 'rubric-tampered' | 'crash';
  /** The last decision, when a round was evaluated. */
  readonly decision?: AcceptanceDecision;
  /** Rounds evaluated in this call. */
  readonly roundsThisRun: number;
  /** The last round number (resumed runs continue the numbering from results.tsv). */
  readonly lastRound: number;
  /** DEVELOP re-entries requested in this call. */
  readonly developReentries: number;
  /** The last evaluation. */
  readonly evaluation?: AcceptanceEvaluation;
  /** The rubric fingerprint, when `rubricFiles` were given. */
  readonly rubricSha256?: string;
  /** The error behind `crash` / `rubric-tampered`. */
  readonly error?: Error;
  /** The stop summary text printed. */
  readonly summaryText: string;
}
