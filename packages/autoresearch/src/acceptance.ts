import { join } from 'node:path';
import { systemClock, type Clock } from '@loop/core';
import type { PassConfig } from './config.js';
import { formatScore } from './format.js';
import { openResultsFile, resultsHeader, type ResultsRow } from './results-tsv.js';

/** What AR-3's validators and reflection found in one acceptance round. */
export interface AcceptanceEvaluation {
  /** Fraction of acceptance criteria passing, 0-1. */
  readonly passRate: number;
  /** How well the delivery matches the task's "why", 0-10. */
  readonly whyAlignment: number;
  /** Open blockers (one line each); empty when none. */
  readonly blockers: readonly string[];
}

/** AR-3's decision after a round: done, re-enter DEVELOP, or escalate to the user. */
export type AcceptanceDecision = 'done' | 'develop' | 'escalate';

/**
 * AR-3's decision (seed 002 stop conditions): `done` when pass_rate ≥ pass_rate_target, no
 * blockers and why_alignment ≥ kpi_target; otherwise `escalate` once `round` reaches
 * max_acceptance_rounds (never loop the pipeline again), else `develop` (re-enter DEVELOP).
 */
export function decideAcceptance(round: number, e: AcceptanceEvaluation, config: PassConfig): AcceptanceDecision {
  if (e.passRate >= config.passRateTarget && e.blockers.length === 0 && e.whyAlignment >= config.kpiTarget)
    return 'done';
  return round >= config.maxAcceptanceRounds ? 'escalate' : 'develop';
}

/** Options of {@link runAcceptanceRound}. */
export interface AcceptanceRoundOptions {
  /** Absolute workspace. */
  workspace: string;
  /** {{TASK_ID}}. */
  taskId: string;
  /** `resolvePassConfig('acceptance', config.autoresearch)`. */
  config: PassConfig;
  /** The round, 1-based (the DEVELOP re-entry count + 1). */
  round: number;
  /** Runs the validators and the reflection agent. */
  evaluate: () => Promise<AcceptanceEvaluation>;
  /** Clock for the utc column. @default systemClock */
  clock?: Clock;
  /** Receives the one chat line (with the gap summary). */
  output?: (line: string) => void;
}

/**
 * Runs one AR-3 acceptance round: evaluates, appends ONE results.tsv row `ar3-r<R> pass_rate
 * why_alignment status - utc` (status is the decision: `done`, `develop` or `escalate`; no gap
 * summary in the row: the right-anchored rule), and prints one chat line that carries the gap summary.
 *
 * @throws {LoopError} `RESULTS_CORRUPT` when results.tsv has another pass's header.
 */
export async function runAcceptanceRound(
  options: AcceptanceRoundOptions,
): Promise<{ decision: AcceptanceDecision; evaluation: AcceptanceEvaluation; row: ResultsRow }> {
  const clock = options.clock ?? systemClock;
  const header = resultsHeader('acceptance');
  const results = await openResultsFile(
    join(options.workspace, '.aid/pipeline/autoresearch', options.taskId, 'results.tsv'),
    header,
  );
  const evaluation = await options.evaluate();
  const decision = decideAcceptance(options.round, evaluation, options.config);
  const row: ResultsRow = {
    iter: `ar3-r${options.round}`,
    columns: { pass_rate: formatScore(evaluation.passRate), why_alignment: formatScore(evaluation.whyAlignment) },
    status: decision,
    snapshot: '-',
    utc: new Date(clock.now()).toISOString(),
  };
  await results.append(row);
  options.output?.(formatRoundLine(options.round, decision, evaluation));
  return { decision, evaluation, row };
}

/** What the orchestrator is told when AR-3 re-enters DEVELOP. */
export interface DevelopRequest {
  /** The acceptance round that found the gaps (1-based). */
  readonly round: number;
  /** That round's evaluation. */
  readonly evaluation: AcceptanceEvaluation;
  /** The open blockers to fix in DEVELOP. */
  readonly blockers: readonly string[];
}

/** What the user is told when AR-3 escalates (max_acceptance_rounds reached without DONE). */
export interface AcceptanceEscalation {
  /** The last round (= max_acceptance_rounds, or later on a resumed run). */
  readonly round: number;
  /** The last evaluation. */
  readonly evaluation: AcceptanceEvaluation;
  /** The blockers still open. */
  readonly blockers: readonly string[];
  /** One line for the user. */
  readonly message: string;
}

/**
 * AR-3's one chat line for an evaluated round: `iter ar3-r<R> | <decision> | pass_rate <p>
 * why_alignment <w> | <gap summary>` (the gap summary lives here, never in results.tsv).
 */
export function formatRoundLine(round: number, decision: AcceptanceDecision, evaluation: AcceptanceEvaluation): string {
  const gaps = evaluation.blockers.length > 0 ? `open blockers: ${evaluation.blockers.join('; ')}` : 'no blockers';
  return (
    `iter ar3-r${round} | ${decision} | ` +
    `pass_rate ${formatScore(evaluation.passRate)} ` +
    `why_alignment ${formatScore(evaluation.whyAlignment)} ` +
    `| ${gaps}${decision === 'escalate' ? ' — escalating to the user (max_acceptance_rounds reached)' : ''}`
  );
}
