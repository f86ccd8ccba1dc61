import { join } from 'node:path';
import {
  createLoop,
  LoopError,
  systemClock,
  type CandidateData,
  type Clock,
  type IterationRecord,
  type KeepPolicy,
  type LoopState,
  type LoopSummary,
  type MaybePromise,
  type RollbackStrategy,
  type StopPolicy,
} from '@loop/core';
import { writeJsonAtomic } from '@loop/core/files';
import { decideAcceptance, formatRoundLine, type AcceptanceDecision, type AcceptanceEvaluation } from './acceptance.js';
import { formatScore } from './format.js';
import { rubricGuard } from './pass-guards.js';
import type { AcceptanceResult, RunAcceptanceOptions } from './acceptance-options.js';
import { createPassResultsLog } from './pass-results-log.js';
import { createPassStateStore } from './pass-state-store.js';
import { AR3_DIMENSIONS, resultsHeader } from './results-tsv.js';
import { computeRubricFingerprint } from './rubric-fingerprint.js';

/** AR-3's facts about one round, carried in its record (`IterationRecord.data.acceptance`). */
interface RoundData extends CandidateData {
  readonly acceptance?: { readonly evaluation: AcceptanceEvaluation };
}

/** AR-3 never rolls anything back: DEVELOP's edits are the pipeline's, and a round only evaluates. */
const noRollback: RollbackStrategy = {
  name: 'none',
  checkpoint: (iteration) => ({ iteration, id: '' }),
  keep: () => '',
  revert: () => {},
};

const messageOf = (error: unknown) => (error as Error)?.message ?? String(error);

/** The round labels AR-3's decision writes. */
const DECISIONS = new Set<string>(['done', 'develop', 'escalate']);

/**
 * AR-3's bounded outer loop (seed 002 stop conditions, "AR-3 outer loop") as a configuration of
 * `@loop/core`'s `createLoop`: round R is iteration R. Its "edit" is the DEVELOP re-entry after a
 * `develop` round (the injected `develop` callback; nothing is rolled back), its harness the
 * validators and reflection (`evaluate`; the evaluation rides in the round's record as
 * `data.acceptance`), its keep policy AR-3's decision (`done`, `develop`, or `escalate` once
 * `round` reaches max_acceptance_rounds: {@link decideAcceptance}), written as the row's status.
 * One `ar3-r<R>` row per round (`ar3-r<R> pass_rate why_alignment status - utc`) and one chat line
 * with the gap summary. DONE stops (`target-met`); on the cap it ESCALATES to the user through
 * `escalate` with the open blockers rather than looping the pipeline (`escalated`). Round numbers
 * continue from the `ar3-r<R>` rows already in results.tsv (the engine's resume; the open blockers
 * of the last round come from results.jsonl, so a DEVELOP re-entry a kill interrupted is
 * re-entered). Also stops on the cost brake (checked before each round and right after each
 * DEVELOP re-entry: `cost-brake`, the round not evaluated), an abort, a rubric change (a
 * `rubric-tampered` row) or an evaluation or DEVELOP failure (a `crash` row). Then, in the engine's
 * `onStop`, escalates, prints the stop summary and has state.json written LAST
 * (`autoresearch.acceptance` and an `AR_ACCEPTANCE` step_history entry). It never edits source
 * itself and never commits.
 *
 * @throws {LoopError} `HARNESS_TAMPERED` when a rubric file is missing at start; `RESULTS_CORRUPT`;
 * `STATE_WRITE_FAILED`.
 */
export async function runAcceptance(options: RunAcceptanceOptions): Promise<AcceptanceResult> {
  const { config } = options;
  if (config.mode !== 'acceptance')
    throw new LoopError(
      'CONFIG_INVALID',
      `[loop] [autoresearch] runAcceptance needs resolvePassConfig('acceptance', ...), got mode ${config.mode}`,
    );
  const clock = options.clock ?? systemClock;
  const out = options.output ?? (() => {});
  const statePath = options.statePath ?? join(options.workspace, '.aid/pipeline/state.json');
  const rubricSha256 = options.rubricFiles ? await computeRubricFingerprint(options.rubricFiles) : undefined;
  const roundData = (record: IterationRecord) => (record.data as RoundData | undefined)?.acceptance;
  const log = await createPassResultsLog({
    path: join(options.workspace, '.aid/pipeline/autoresearch', options.taskId, 'results.tsv'),
    header: resultsHeader('acceptance'),
    dimensions: AR3_DIMENSIONS,
    clock,
    snapshotOf: () => '-',
    rounds: true,
    extraOf: (r) => ({ blockers: roundData(r)?.evaluation.blockers ?? [] }),
  });
  const spent = () => options.cost?.meter.spentUsd() ?? 0;
  const braked = () => options.cost !== undefined && spent() >= options.cost.maxPerRunUsd;
  // The brake right after a DEVELOP re-entry stops before that round is evaluated: an internal abort.
  const brake = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, brake.signal]) : brake.signal;
  let developReentries = 0;
  /**
   * The round the harness just evaluated, for the keep policy right after it: the engine's
   * `KeepInput` carries the score and dimensions but not the candidate's record.
   */
  let evaluated: { round: number; evaluation: AcceptanceEvaluation } | undefined;

  /** A round's evaluation: its record's, else (a row read back on resume) its cells and the twin's blockers. */
  const evaluationOf = (record: IterationRecord): AcceptanceEvaluation =>
    roundData(record)?.evaluation ?? {
      passRate: record.dimensions?.pass_rate ?? 0,
      whyAlignment: record.dimensions?.why_alignment ?? 0,
      blockers: (log.extra(record.iteration) as { blockers?: string[] } | undefined)?.blockers ?? [],
    };
  /** What failed in a crash round: the DEVELOP re-entry (the proposer) or the evaluation. */
  const failure = (record: IterationRecord) =>
    record.description.startsWith('proposer failed: ') ? 'DEVELOP failed' : 'evaluation failed';
  const keepPolicy: KeepPolicy = {
    name: 'ar3-decision',
    decide: () => {
      const decision = decideAcceptance(evaluated!.round, evaluated!.evaluation, config);
      return { keep: true, reason: decision, status: decision };
    },
  };
  const stop: StopPolicy = {
    name: 'ar3-stop',
    check: (s) => {
      const row = s.history.at(-1);
      if (row?.label === 'done')
        return { reason: 'target-met', message: 'DONE: pass_rate, blockers and why_alignment meet their targets' };
      if (row?.label === 'escalate')
        return {
          reason: 'escalated',
          message: `max_acceptance_rounds ${config.maxAcceptanceRounds} reached without DONE`,
        };
      if (row?.status === 'crash') return { reason: 'crash', message: row.description };
      if (braked())
        return {
          reason: 'cost-brake',
          message: `spent ${spent().toFixed(2)} USD of max_per_run_usd ${options.cost!.maxPerRunUsd}`,
        };
      return undefined;
    },
  };

  const stateStore = createPassStateStore({
    path: statePath,
    workspace: options.workspace,
    mode: 'acceptance',
    taskId: options.taskId,
    resumed: log.resumed,
    write: options.writeState ?? writeJsonAtomic,
    resultsPath: log.path,
  });
  let final: AcceptanceResult | undefined;
  const onStop = async (summary: LoopSummary, state: LoopState) => {
    const tampered = summary.halted?.status === 'rubric-tampered';
    const stopReason = (
      brake.signal.aborted ? 'cost-brake' : tampered ? 'rubric-tampered' : summary.stop.reason
    ) as AcceptanceResult['stopReason'];
    const lastRow = state.history.at(-1);
    const lastRound = lastRow?.iteration ?? 0;
    const thisRun = state.history.slice(state.history.length - summary.iterationsThisRun);
    const decided = [...state.history].reverse().find((r) => r.label !== undefined && DECISIONS.has(r.label));
    const last =
      decided && thisRun.includes(decided)
        ? { decision: decided.label as AcceptanceDecision, evaluation: evaluationOf(decided) }
        : undefined;
    const error = tampered
      ? new LoopError('HARNESS_TAMPERED', summary.halted!.note.replace(/^[\w-]+: /, ''))
      : lastRow?.status === 'crash' && lastRow.error !== undefined
        ? new Error(lastRow.error)
        : undefined;
    const roundsThisRun = thisRun.filter((r) => r.label !== undefined && DECISIONS.has(r.label)).length;
    const evaluation = last?.evaluation;
    if (stopReason === 'escalated' && evaluation) {
      const message =
        `AR-3 reached max_acceptance_rounds ${config.maxAcceptanceRounds} ` +
        `without DONE (pass_rate ${formatScore(evaluation.passRate)}, ` +
        `why_alignment ${formatScore(evaluation.whyAlignment)}); open ` +
        `blockers: ${evaluation.blockers.length > 0 ? evaluation.blockers.join('; ') : 'none'}`;
      await options.escalate({ round: lastRound, evaluation, blockers: evaluation.blockers, message });
    }
    const evaluationText = evaluation
      ? ` | pass_rate ${formatScore(evaluation.passRate)} why_alignment ` +
        `${formatScore(evaluation.whyAlignment)} | open blockers ` +
        `${evaluation.blockers.length}`
      : '';
    const summaryText = [
      `autoresearch acceptance stopped: ${stopReason}${error ? ` (${error.message})` : ''}`,
      `rounds ${roundsThisRun} (last ar3-r${lastRound}) | DEVELOP ` + `re-entries ${developReentries}${evaluationText}`,
      ...(rubricSha256 ? [`rubric sha256 ${rubricSha256}`] : []),
      'validated — your call: nothing was committed',
    ].join('\n');
    out(summaryText);
    final = {
      stopReason,
      ...(last ? { decision: last.decision } : {}),
      roundsThisRun,
      lastRound,
      developReentries,
      ...(evaluation ? { evaluation } : {}),
      ...(rubricSha256 ? { rubricSha256 } : {}),
      ...(error ? { error } : {}),
      summaryText,
    };
    const utc = new Date(clock.now()).toISOString();
    const entry = {
      task_id: options.taskId,
      ...(rubricSha256 ? { rubric_sha256: rubricSha256 } : {}),
      stop_reason: stopReason,
      decision: last?.decision ?? null,
      last_round: lastRound,
      develop_reentries: developReentries,
      pass_rate: evaluation?.passRate ?? null,
      why_alignment: evaluation?.whyAlignment ?? null,
      open_blockers: evaluation?.blockers ?? [],
      results: log.path,
      updated_at: utc,
    };
    const history = {
      step: 'AR_ACCEPTANCE',
      stop_reason: stopReason,
      decision: last?.decision ?? null,
      last_round: lastRound,
      utc,
    };
    stateStore.finish({ entry, history, files: options.files ?? [], result: final });
  };

  const loop = createLoop({
    proposer: {
      name: 'develop',
      propose: async (ctx) => {
        const previous = ctx.history.at(-1);
        if (previous?.label === 'develop') {
          const evaluation = evaluationOf(previous);
          developReentries += 1;
          await options.develop({ round: previous.iteration, evaluation, blockers: evaluation.blockers });
          if (braked()) brake.abort();
        }
        return { description: `ar3-r${ctx.iteration}` };
      },
    },
    harness: {
      name: 'ar3-validators',
      run: async ({ iteration }) => {
        if (iteration === 0) return { exitCode: 0, signal: null, timedOut: false, durationMs: 0, value: 0 };
        try {
          const evaluation = await options.evaluate({ round: iteration, signal });
          evaluated = { round: iteration, evaluation };
          const data: RoundData = { acceptance: { evaluation } };
          const dimensions = { pass_rate: evaluation.passRate, why_alignment: evaluation.whyAlignment };
          return {
            exitCode: 0,
            signal: null,
            timedOut: false,
            durationMs: 0,
            value: evaluation.passRate,
            dimensions,
            data,
          };
        } catch (e) {
          return { exitCode: null, signal: null, timedOut: false, durationMs: 0, error: messageOf(e) };
        }
      },
    },
    scorer: {
      name: 'ar3-pass-rate',
      direction: 'maximize',
      score: (r) =>
        r.value === undefined
          ? { ok: false, reason: 'harness-error', message: r.error ?? 'no evaluation' }
          : { ok: true, value: r.value, ...(r.dimensions ? { dimensions: r.dimensions } : {}) },
    },
    rollback: noRollback,
    stop,
    results: log,
    stateStore,
    onStop,
    clock,
    signal,
    keep: {
      policy: keepPolicy,
      guards:
        options.rubricFiles && rubricSha256
          ? [rubricGuard({ rubricFiles: options.rubricFiles, expected: rubricSha256 })]
          : [],
    },
    recovery: { maxProposerFailures: Number.MAX_SAFE_INTEGER },
  });

  const line = (record: IterationRecord) => {
    if (record.status === 'baseline') return;
    const round = record.iteration;
    if (record.label !== undefined && DECISIONS.has(record.label))
      out(formatRoundLine(round, record.label as AcceptanceDecision, evaluationOf(record)));
    else if (record.label === 'rubric-tampered')
      out(`iter ar3-r${round} | rubric-tampered | - | not evaluated: ${(record.note ?? '').replace(/^[\w-]+: /, '')}`);
    else if (record.status === 'crash')
      out(`iter ar3-r${round} | crash | - | ${failure(record)}: ${record.error ?? record.description}`);
  };
  for (const type of ['baseline', 'kept', 'reverted', 'crash', 'halted'] as const) loop.on(type, (e) => line(e.record));
  await loop.run();
  return final!;
}
