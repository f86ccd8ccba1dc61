import { join } from 'node:path';
import { isLoopError, LoopError, systemClock, type Clock, type MaybePromise } from '@loop/core';
import type { PassConfig } from './config.js';
import { formatScore } from './format.js';
import { openResultsFile, resultsHeader, type ResultsRow } from './results-tsv.js';
import { computeRubricFingerprint } from './rubric-fingerprint.js';
import type { CostMeter } from './pass-options.js';
import { writePipelineStateLast } from './pass-state-store.js';

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
  if (e.passRate >= config.passRateTarget && e.blockers.length === 0 && e.whyAlignment >= config.kpiTarget) return 'done';
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
export async function runAcceptanceRound(options: AcceptanceRoundOptions): Promise<{ decision: AcceptanceDecision; evaluation: AcceptanceEvaluation; row: ResultsRow }> {
  const clock = options.clock ?? systemClock;
  const header = resultsHeader('acceptance');
  const results = await openResultsFile(join(options.workspace, '.aid/pipeline/autoresearch', options.taskId, 'results.tsv'), header);
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
  const gaps = evaluation.blockers.length > 0 ? `open blockers: ${evaluation.blockers.join('; ')}` : 'no blockers';
  options.output?.(`iter ${row.iter} | ${decision} | pass_rate ${formatScore(evaluation.passRate)} why_alignment ${formatScore(evaluation.whyAlignment)} | ${gaps}${decision === 'escalate' ? ' — escalating to the user (max_acceptance_rounds reached)' : ''}`);
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

/** Options of {@link runAcceptance}. */
export interface RunAcceptanceOptions {
  /** Absolute workspace. */
  workspace: string;
  /** {{TASK_ID}}. */
  taskId: string;
  /** `resolvePassConfig('acceptance', config.autoresearch)`. */
  config: PassConfig;
  /** Runs the validators and the reflection agent on the delivery as it is now. Throwing is a `crash` round and stops AR-3. */
  evaluate: (context: { round: number; signal: AbortSignal }) => Promise<AcceptanceEvaluation>;
  /** The orchestrator's DEVELOP re-entry (injected): fix the open blockers, then return; AR-3 evaluates again. */
  develop: (request: DevelopRequest) => MaybePromise<void>;
  /** Escalation to the user (injected): called once, with the open blockers, when the cap is reached. */
  escalate: (escalation: AcceptanceEscalation) => MaybePromise<void>;
  /** Harness-defining files in a fixed order; fingerprinted at start and re-checked before every evaluation. @default none */
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

/**
 * AR-3's bounded outer loop (seed 002 stop conditions, "AR-3 outer loop"): evaluate a round
 * ({@link runAcceptanceRound}: one `ar3-r<R>` row, one chat line); DONE stops; otherwise re-enter
 * DEVELOP through the injected `develop` callback and evaluate again, until max_acceptance_rounds,
 * where it ESCALATES to the user through `escalate` with the open blockers rather than looping the
 * pipeline. Round numbers continue from the `ar3-r<R>` rows already in results.tsv (resume). Also
 * stops on the cost brake, an abort, a rubric change (`rubric-tampered`) or an evaluation crash
 * (a `crash` row). Then prints the stop summary and writes state.json LAST (`autoresearch.acceptance`
 * and an `AR_ACCEPTANCE` step_history entry). It never edits source itself and never commits.
 *
 * @throws {LoopError} `HARNESS_TAMPERED` when a rubric file is missing at start; `RESULTS_CORRUPT`; `STATE_WRITE_FAILED`.
 */
export async function runAcceptance(options: RunAcceptanceOptions): Promise<AcceptanceResult> {
  const { config } = options;
  if (config.mode !== 'acceptance') throw new LoopError('CONFIG_INVALID', `[loop] [autoresearch] runAcceptance needs resolvePassConfig('acceptance', ...), got mode ${config.mode}`);
  const clock = options.clock ?? systemClock;
  const signal = options.signal ?? new AbortController().signal;
  const out = options.output ?? (() => {});
  const results = await openResultsFile(join(options.workspace, '.aid/pipeline/autoresearch', options.taskId, 'results.tsv'), resultsHeader('acceptance'));
  const rubricSha256 = options.rubricFiles ? await computeRubricFingerprint(options.rubricFiles) : undefined;
  const done = results.existing.map((r) => /^ar3-r(\d+)$/.exec(r.iter)?.[1]).filter((x): x is string => x !== undefined).map(Number);
  let round = Math.max(0, ...done);
  let roundsThisRun = 0;
  let developReentries = 0;
  let decision: AcceptanceDecision | undefined;
  let evaluation: AcceptanceEvaluation | undefined;
  let stopReason: AcceptanceResult['stopReason'] | undefined;
  let error: Error | undefined;
  const utc = () => new Date(clock.now()).toISOString();

  while (!stopReason) {
    if (signal.aborted) { stopReason = 'aborted'; break; }
    if (options.cost && options.cost.meter.spentUsd() >= options.cost.maxPerRunUsd) { stopReason = 'cost-brake'; break; }
    round += 1;
    if (options.rubricFiles && rubricSha256) {
      const now = await computeRubricFingerprint(options.rubricFiles).catch(() => 'unreadable');
      if (now !== rubricSha256) {
        error = new LoopError('HARNESS_TAMPERED', `[loop] [autoresearch] the rubric changed mid-pass (sha256 ${rubricSha256.slice(0, 12)} -> ${now.slice(0, 12)}); AR-3 halted`, { details: { expected: rubricSha256, actual: now } });
        await results.append({ iter: `ar3-r${round}`, columns: {}, status: 'rubric-tampered', snapshot: '-', utc: utc() });
        out(`iter ar3-r${round} | rubric-tampered | - | not evaluated: ${error.message}`);
        stopReason = 'rubric-tampered';
        break;
      }
    }
    try {
      const r = await runAcceptanceRound({ workspace: options.workspace, taskId: options.taskId, config, round, clock, output: out, evaluate: () => options.evaluate({ round, signal }) });
      decision = r.decision;
      evaluation = r.evaluation;
    } catch (e) {
      if (isLoopError(e, 'RESULTS_CORRUPT')) throw e;
      error = e instanceof Error ? e : new Error(String(e));
      await results.append({ iter: `ar3-r${round}`, columns: {}, status: 'crash', snapshot: '-', utc: utc() });
      out(`iter ar3-r${round} | crash | - | evaluation failed: ${error.message}`);
      stopReason = 'crash';
      break;
    }
    roundsThisRun += 1;
    if (decision === 'done') stopReason = 'target-met';
    else if (decision === 'escalate') {
      const message = `AR-3 reached max_acceptance_rounds ${config.maxAcceptanceRounds} without DONE (pass_rate ${formatScore(evaluation.passRate)}, why_alignment ${formatScore(evaluation.whyAlignment)}); open blockers: ${evaluation.blockers.length > 0 ? evaluation.blockers.join('; ') : 'none'}`;
      await options.escalate({ round, evaluation, blockers: evaluation.blockers, message });
      stopReason = 'escalated';
    } else {
      developReentries += 1;
      try {
        await options.develop({ round, evaluation, blockers: evaluation.blockers });
      } catch (e) {
        error = e instanceof Error ? e : new Error(String(e));
        stopReason = 'crash';
      }
    }
  }

  const summaryText = [
    `autoresearch acceptance stopped: ${stopReason}${error ? ` (${error.message})` : ''}`,
    `rounds ${roundsThisRun} (last ar3-r${round}) | DEVELOP re-entries ${developReentries}${evaluation ? ` | pass_rate ${formatScore(evaluation.passRate)} why_alignment ${formatScore(evaluation.whyAlignment)} | open blockers ${evaluation.blockers.length}` : ''}`,
    ...(rubricSha256 ? [`rubric sha256 ${rubricSha256}`] : []),
    'validated — your call: nothing was committed',
  ].join('\n');
  out(summaryText);
  const result: AcceptanceResult = {
    stopReason,
    ...(decision ? { decision } : {}),
    roundsThisRun,
    lastRound: round,
    developReentries,
    ...(evaluation ? { evaluation } : {}),
    ...(rubricSha256 ? { rubricSha256 } : {}),
    ...(error ? { error } : {}),
    summaryText,
  };
  const when = utc();
  await writePipelineStateLast({
    path: options.statePath ?? join(options.workspace, '.aid/pipeline/state.json'),
    mode: 'acceptance',
    entry: {
      ...(rubricSha256 ? { rubric_sha256: rubricSha256 } : {}),
      stop_reason: stopReason,
      decision: decision ?? null,
      last_round: round,
      develop_reentries: developReentries,
      pass_rate: evaluation?.passRate ?? null,
      why_alignment: evaluation?.whyAlignment ?? null,
      open_blockers: evaluation?.blockers ?? [],
      results: results.path,
      updated_at: when,
    },
    history: { step: 'AR_ACCEPTANCE', stop_reason: stopReason, decision: decision ?? null, last_round: round, utc: when },
    files: options.files ?? [],
    workspace: options.workspace,
    ...(options.writeState ? { write: options.writeState } : {}),
    result,
    resultsPath: results.path,
  });
  return result;
}
