import { join } from 'node:path';
import { acquireLock, anyOf, createLoop, isLoopError, LoopError, strictImprovement, systemClock, tier1Gates, writeJsonAtomic, type EngineState, type IterationRecord } from '@loop/core';
import { createSnapshotRollback, KEPT_DIR_PATTERN, pad3, type SnapshotRollback } from '@loop/rollback-snapshot';
import { readdir } from 'node:fs/promises';
import { formatIterationLine, formatSummary, type KeptChangeSummary, type PassSummary } from './format.js';
import type { PassScore } from './pass-harness.js';
import { engineHarness, engineProposer } from './pass-engine.js';
import { harnessFilesFingerprint, harnessFilesGuard, needsHumanGuard, rubricGuard, safetyGuard, surfaceGuard } from './pass-guards.js';
import { defaultTargetMet, type PassResult, type RunPassOptions } from './pass-options.js';
import { createPassResultsLog, statusOf } from './pass-results-log.js';
import { createPassRun, type PassRun } from './pass-run.js';
import { createPassStateStore, recordRubricAtStart, type FinalState } from './pass-state-store.js';
import { bestScoreOf, passStopPolicy } from './pass-stop.js';
import { resultsHeader } from './results-tsv.js';
import { computeRubricFingerprint } from './rubric-fingerprint.js';
import { countsAsRevert } from './statuses.js';

const STEP: Record<string, string> = { design: 'AR_DESIGN', function: 'AR_FUNCTION', acceptance: 'AR_ACCEPTANCE' };
/** Halts that are loud failures (the summary's `HALTED:` line, state.json `status`); needs-human is a clean stop. */
const LOUD = new Set(['restore-failed', 'rubric-tampered', 'harness-tampered']);
const messageOf = (error: unknown) => (error as Error)?.message ?? String(error);

/**
 * Runs one autoresearch pass, design (AR-1) or function (AR-2), to a stop (seed 002 loop skeleton),
 * as a configuration of `@loop/core`'s `createLoop`: the snapshot rollback, `tier1Gates` over the
 * keep policy (strict improvement; a test gone green-to-red is `reverted-redtest`), the pass's
 * guards (needs-human, ASK before safety-critical edits, the mutable surface, the rubric
 * fingerprint, the harness files), seed 002's stop conditions, results.tsv as the results log and
 * `.aid/pipeline/state.json` as the state store.
 *
 * Setup (once, under `<runDir>/pass.lock`): results.tsv opened (resumed from the next iter when it
 * has data rows, never re-baselined); rubric fingerprint recorded in state.json (a resumed pass
 * whose fingerprint differs refuses to start); baseline scored, THEN snapshotted
 * (`000-baseline-<UTC>`) and logged as row 0; on resume the best kept version is restored and, in
 * function mode, re-scored once so "target met" uses measured Tier-1 gates. Each iteration, in the
 * engine: plan one edit → guards before the edit (needs-human halts; an ASK refusal is a `reverted`
 * row, nothing applied) → pre-edit snapshot of the files it touches → apply (`internal_rounds`
 * rounds in function mode) → rubric and harness re-checked (a change halts: `rubric-tampered`,
 * `harness-tampered`) → harness → keep only a strict improvement, else revert (`crash` on a harness
 * error; a failed restore halts as `restore-failed`) → one results.tsv row, durable before the keep
 * or revert → one chat line. Stops on target met, plateau, iteration cap, cost brake, abort or a
 * halt; then, in this order: restore the best kept version (or the baseline), print the summary,
 * write state.json last (temp + rename, re-read, its mtime not older than the newest mutable file).
 *
 * @throws {LoopError} `LOCK_HELD` when another pass holds the run directory; `BASELINE_FAILED` when the baseline cannot be scored; `HARNESS_TAMPERED` when a
 *   rubric or harness file is missing at start or the rubric changed since a resumed pass started; `RESULTS_CORRUPT`; `STATE_WRITE_FAILED` (the seed's
 *   `state-write-failed`, with `details.result`) when state.json cannot be written or verified;
 *   `CONFIG_INVALID` for acceptance mode (use `runAcceptance`). `restore-failed`, `rubric-tampered`
 *   and `harness-tampered` are not thrown: they are rows, `result.halted` and `result.error`.
 */
export async function runPass(options: RunPassOptions): Promise<PassResult> {
  if (options.config.mode === 'acceptance') {
    throw new LoopError('CONFIG_INVALID', '[loop] [autoresearch] runPass runs the design and function passes; acceptance mode is runAcceptance');
  }
  const lock = await acquireLock({ path: join(options.workspace, '.aid/pipeline/autoresearch', options.taskId, 'pass') });
  try {
    return await runPassLocked(options);
  } finally {
    await lock.release();
  }
}

async function runPassLocked(options: RunPassOptions): Promise<PassResult> {
  const { config, harness } = options;
  const mode = config.mode;
  const clock = options.clock ?? systemClock;
  const signal = options.signal ?? new AbortController().signal;
  const out = options.output ?? (() => {});
  const runDir = join(options.workspace, '.aid/pipeline/autoresearch', options.taskId);
  const statePath = options.statePath ?? join(options.workspace, '.aid/pipeline/state.json');
  const writeState = options.writeState ?? writeJsonAtomic;
  const targetMet = options.targetMet ?? defaultTargetMet;
  const rollback: SnapshotRollback = options.rollback ?? createSnapshotRollback({ workspace: options.workspace, runDir, clock, ...(options.files ? { files: options.files } : {}) });
  const run = createPassRun();

  const log = await createPassResultsLog({
    path: join(runDir, 'results.tsv'),
    header: resultsHeader(mode, harness.dimensions),
    dimensions: harness.dimensions,
    clock,
    snapshotOf: (r) => (r.status === 'baseline' ? r.candidateId : (run.checkpoints.get(r.iteration)?.copies.map((c) => c.snapshot).join(',') ?? '')),
    keptIdOf: async (iteration) => (await readdir(rollback.snapshotsDir).catch(() => [] as string[])).filter((n) => KEPT_DIR_PATTERN.test(n) && n.startsWith(`${pad3(iteration)}-kept-`)).sort().at(-1) ?? '',
  });
  const rubricSha256 = await computeRubricFingerprint(options.rubricFiles);
  const harnessFiles = options.harnessFiles ?? [];
  const harnessSha256 = await harnessFilesFingerprint(harnessFiles);
  await recordRubricAtStart({ statePath, mode, taskId: options.taskId, rubricSha256, resumed: log.resumed, write: writeState, resultsPath: log.path });

  // Setup: a new pass scores the baseline, THEN snapshots it (seed 002 setup step 5); a resumed one
  // restores the best kept version and, in function mode, re-measures its Tier-1 gates.
  const history: IterationRecord[] = log.resumed ? await log.read() : [];
  let baseline: PassScore | undefined;
  if (!log.resumed) {
    baseline = await Promise.resolve()
      .then(() => harness.score({ iteration: 0, signal }))
      .catch((error: unknown) => {
        throw new LoopError('BASELINE_FAILED', `[loop] [autoresearch] the baseline could not be scored by ${harness.name}: ${messageOf(error)}; fix the harness before the pass`, { cause: error });
      });
    run.baselineGreen = baseline.gates?.testsGreen ?? true;
    await rollback.start();
  } else {
    await rollback.start(); // reuses the complete baseline directory: no re-baseline
    if (history[0]?.status !== 'baseline') throw new LoopError('RESULTS_CORRUPT', `[loop] [autoresearch] ${log.path} does not start with a baseline row; move it away to start a new pass`, { details: { path: log.path } });
    run.baselineGreen = history[0].gates?.tests ?? true;
    const incumbent = [...history].reverse().find((r) => r.status === 'kept' || r.status === 'baseline')!;
    await rollback.recover(incumbent.candidateId); // discard what an interrupted iteration left behind
    if (mode === 'function') {
      try {
        const rescored = await harness.score({ iteration: incumbent.iteration, signal, resumeCheck: true });
        run.resumeCheck = { iteration: incumbent.iteration, ...(rescored.gates ? { gates: rescored.gates } : {}), composite: rescored.composite };
        run.baselineGreen = rescored.gates?.testsGreen ?? run.baselineGreen;
      } catch (error) {
        run.resumeCheck = { iteration: incumbent.iteration, error: messageOf(error) };
      }
    }
  }

  const recentReverted: string[] = [];
  const keptThisPass: KeptChangeSummary[] = [];
  let iterationsThisRun = 0;
  let final: PassResult | undefined;
  const onStop = async (state: EngineState): Promise<FinalState> => {
    if (state.halted?.code === 'RESTORE_FAILED' && log.rows().at(-1)?.status !== 'restore-failed') {
      // The stop's restore of the best failed (seed 002 on-stop step 1): the loud status is a row too,
      // before the summary and state.json.
      const record: IterationRecord = { iteration: state.iteration + 1, candidateId: '', score: null, status: 'halted', label: 'restore-failed', description: `restore of the best kept version ${state.bestId} failed: ${state.halted.note}` };
      await log.append(record);
      out(formatIterationLine(record.iteration, 'restore-failed', null, null, record.description));
    }
    final = buildResult({ state, run, history, keptThisPass, iterationsThisRun, rubricSha256, mode, resumed: log.resumed, resultsPath: log.path, statePath, statuses: log.rows().map((r) => r.status) });
    out(final.summaryText);
    const utc = new Date(clock.now()).toISOString();
    const entry = {
      task_id: options.taskId,
      rubric_sha256: rubricSha256,
      start_score: final.startComposite,
      best_score: final.bestComposite,
      counts: final.counts,
      stop_reason: final.stopReason,
      status: final.halted ?? 'stopped',
      best_snapshot: final.bestId,
      results: log.path,
      ...(final.bestGates ? { best_gates: final.bestGates } : {}),
      ...(final.refusedEdits.length > 0 ? { refused_edits: final.refusedEdits } : {}),
      updated_at: utc,
    };
    return { entry, history: { step: STEP[mode]!, start_score: final.startComposite, best_score: final.bestComposite, stop_reason: final.stopReason, utc }, files: rollback.files(), result: final };
  };

  const tracking: SnapshotRollback = {
    ...rollback,
    checkpoint: async (iteration, plan) => {
      const cp = await rollback.checkpoint(iteration, plan ? { ...(plan.files ? { files: plan.files } : {}), ...(plan.slug ? { slug: plan.slug } : {}) } : undefined);
      run.checkpoints.set(iteration, cp);
      return cp;
    },
  };
  const { harness: engineH, scorer } = engineHarness(harness, { run, config, ...(baseline ? { baseline } : {}) });
  const loop = createLoop({
    proposer: engineProposer(options.proposer, { run, config, files: rollback.files, rows: log.rows, recentReverted }),
    harness: engineH,
    scorer,
    rollback: tracking,
    keepPolicy: tier1Gates(options.keepPolicy ?? strictImprovement(), { status: 'reverted-redtest' }),
    stop: anyOf(passStopPolicy({ config, run, targetMet, ...(options.cost ? { maxPerRunUsd: options.cost.maxPerRunUsd } : {}) }), ...(options.stop ? [options.stop] : [])),
    results: log,
    stateStore: createPassStateStore({ path: statePath, workspace: options.workspace, mode, taskId: options.taskId, resumed: log.resumed, write: writeState, resultsPath: log.path, onStop }),
    guards: [
      needsHumanGuard({ report: run }),
      safetyGuard({ safety: options.safety, surface: rollback.files, refused: (e) => run.refusedEdits.push(e), report: run }),
      surfaceGuard({ surface: rollback.files, report: run }),
      rubricGuard({ rubricFiles: options.rubricFiles, expected: rubricSha256, report: run }),
      ...(harnessFiles.length > 0 ? [harnessFilesGuard({ files: harnessFiles, expected: harnessSha256, report: run })] : []),
      ...(options.guards ?? []),
    ],
    ...(options.cost ? { cost: () => ({ usd: options.cost!.meter.spentUsd() }) } : {}),
    clock,
    signal,
    maxProposerFailures: Number.MAX_SAFE_INTEGER,
  });

  let best = Number.NaN;
  const line = (record: IterationRecord, previousBest: number) => {
    history.push(record);
    const delta = record.score === null ? null : record.status === 'baseline' ? 0 : record.score - previousBest;
    out(formatIterationLine(record.iteration, statusOf(record), record.score, delta, record.status === 'baseline' ? 'baseline' : run.describeRow(record)));
    if (record.status === 'baseline') return;
    iterationsThisRun += 1;
    if (countsAsRevert(statusOf(record))) recentReverted.push(run.ideas.get(record.iteration)?.description ?? record.description);
  };
  loop.on('resumed', (e) => void (best = e.best));
  loop.on('baseline', (e) => {
    best = e.record.score!;
    line(e.record, best);
  });
  loop.on('kept', (e) => {
    keptThisPass.push({ iter: e.record.iteration, delta: e.record.score! - e.previousBest, description: run.describeRow(e.record) });
    line(e.record, e.previousBest);
    best = e.record.score!;
  });
  for (const type of ['reverted', 'crash', 'halted'] as const) loop.on(type, (e) => line(e.record, best));

  try {
    await loop.run();
  } catch (error) {
    if (!final || !isLoopError(error) || !(error.code === 'RESTORE_FAILED' || error.code === 'HARNESS_TAMPERED')) throw error;
    final = { ...final, error };
  }
  return final!;
}

/** The pass's result and stop summary from the engine's final state (seed 002 on-stop step 2). */
function buildResult(o: { state: EngineState; run: PassRun; history: readonly IterationRecord[]; keptThisPass: readonly KeptChangeSummary[]; iterationsThisRun: number; rubricSha256: string; mode: PassSummary['mode']; resumed: boolean; resultsPath: string; statePath: string; statuses: readonly string[] }): PassResult {
  const { state, run } = o;
  const counts = { kept: 0, reverted: 0, revertedRedtest: 0, crash: 0 };
  for (const s of o.statuses) {
    if (s === 'kept') counts.kept += 1;
    else if (s === 'reverted' || s === 'reverted-redtest') counts.reverted += 1;
    if (s === 'reverted-redtest') counts.revertedRedtest += 1;
    if (s === 'crash') counts.crash += 1;
  }
  const restoreFailed = state.halted?.code === 'RESTORE_FAILED';
  const guardHalt = run.halted && !restoreFailed ? run.halted : undefined;
  const stopReason = guardHalt ? guardHalt.status : state.stopReason === 'halted' ? (state.halted?.status ?? 'halted') : state.stopReason!;
  const stopMessage = guardHalt ? guardHalt.message : restoreFailed ? state.halted!.note : (state.stopMessage ?? '');
  const halted = restoreFailed ? 'restore-failed' : guardHalt && LOUD.has(guardHalt.status) ? guardHalt.status : undefined;
  const error = restoreFailed ? new LoopError('RESTORE_FAILED', state.halted!.note) : guardHalt?.error;
  if (restoreFailed) run.halted = { status: 'restore-failed', message: state.halted!.note };
  const summary: PassSummary = {
    mode: o.mode,
    startComposite: state.baseline,
    bestComposite: state.best,
    counts,
    topKept: [...o.keptThisPass].sort((a, b) => b.delta - a.delta),
    stopReason,
    stopMessage,
    rubricSha256: o.rubricSha256,
    ...(halted ? { halted } : {}),
  };
  const bestGates = bestScoreOf({ history: o.history, best: state.best }, run)?.gates;
  const resumeCheck = run.resumeCheck ? (({ iteration: _i, ...rest }) => rest)(run.resumeCheck) : undefined;
  return {
    ...summary,
    summaryText: formatSummary(summary),
    resultsPath: o.resultsPath,
    statePath: o.statePath,
    bestId: state.bestId,
    iterationsThisRun: o.iterationsThisRun,
    resumed: o.resumed,
    ...(error ? { error } : {}),
    refusedEdits: run.refusedEdits,
    ...(resumeCheck ? { resumeCheck } : {}),
    ...(bestGates ? { bestGates } : {}),
  };
}
