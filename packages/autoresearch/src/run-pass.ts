import { join } from 'node:path';
import {
  anyOf,
  createLoop,
  isLoopError,
  LoopError,
  strictImprovement,
  systemClock,
  type IterationRecord,
  type LoopState,
  type LoopSummary,
} from '@loop/core';
import { tier1Gates } from '@loop/core/policies';
import { acquireLock, writeJsonAtomic } from '@loop/core/files';
import { createSnapshotRollback, type SnapshotRollback } from '@loop/rollback-snapshot';
import { KEPT_DIR_PATTERN, pad3 } from '@loop/rollback-snapshot/snapshot-names';
import { readdir } from 'node:fs/promises';
import { formatIterationLine } from './format.js';
import type { PassScore } from './pass-harness.js';
import { describeRow, engineHarness, engineProposer } from './pass-engine.js';
import {
  harnessFilesFingerprint,
  harnessFilesGuard,
  needsHumanGuard,
  rubricGuard,
  safetyGuard,
  surfaceGuard,
} from './pass-guards.js';
import { defaultTargetMet, type PassResult, type RefusedEdit, type RunPassOptions } from './pass-options.js';
import { createPassResultsLog, statusOf } from './pass-results-log.js';
import { passRollback } from './pass-rollback.js';
import { createPassStateStore, recordRubricAtStart } from './pass-state-store.js';
import { passStopPolicy, type ScoresBeyondRows } from './pass-stop.js';
import { buildPassResult, finalStateOf } from './pass-result.js';
import { resultsHeader } from './results-tsv.js';
import { computeRubricFingerprint } from './rubric-fingerprint.js';

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
 * whose fingerprint differs refuses to start). Then the engine scores the baseline, THEN it is
 * snapshotted (`000-baseline-<UTC>`, see {@link passRollback}) and logged as row 0; or the engine
 * resumes from results.tsv: the best kept version is restored and, in function mode, re-scored
 * once so "target met" uses measured Tier-1 gates. Each iteration, in the engine: plan one edit → guards before the
 * edit (needs-human halts; an ASK refusal is a `reverted`
 * row, nothing applied) → pre-edit snapshot of the files it touches → apply (`internal_rounds`
 * rounds in function mode) → rubric and harness re-checked (a change halts: `rubric-tampered`,
 * `harness-tampered`) → harness → keep only a strict improvement, else revert (`crash` on a harness
 * error; a failed restore halts as `restore-failed`) → one results.tsv row, durable before the keep
 * or revert → one chat line. Stops on target met, plateau, iteration cap, cost brake, abort or a
 * halt; then, in this order: restore the best kept version (or the baseline), print the summary
 * (`onStop`, from the engine's summary and per-candidate records), write state.json last (temp + rename, re-read, its
 * mtime not older than the newest mutable file).
 *
 * @throws {LoopError} `LOCK_HELD` when another pass holds the run directory; `BASELINE_FAILED` when the baseline cannot
 * be scored; `HARNESS_TAMPERED` when a
 * rubric or harness file is missing at start or the rubric changed since a resumed pass started; `RESULTS_CORRUPT`;
 * `STATE_WRITE_FAILED` (the seed's
 *   `state-write-failed`, with `details.result`) when state.json cannot be written or verified;
 *   `CONFIG_INVALID` for acceptance mode (use `runAcceptance`). `restore-failed`, `rubric-tampered`
 *   and `harness-tampered` are not thrown: they are rows, `result.halted` and `result.error`.
 */
export async function runPass(options: RunPassOptions): Promise<PassResult> {
  if (options.config.mode === 'acceptance') {
    throw new LoopError(
      'CONFIG_INVALID',
      '[loop] [autoresearch] runPass runs the design and function passes; acceptance mode is runAcceptance',
    );
  }
  const lock = await acquireLock({
    path: join(options.workspace, '.aid/pipeline/autoresearch', options.taskId, 'pass'),
  });
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
  const inner: SnapshotRollback =
    options.rollback ??
    createSnapshotRollback({
      workspace: options.workspace,
      runDir,
      clock,
      ...(options.files ? { files: options.files } : {}),
    });
  // Scores the engine's rows do not carry (the baseline's; the gates re-measured on resume), and
  // whether the pass (re)started green (a red test is then green-to-red: `reverted-redtest`).
  const beyond: {
    baseline?: ScoresBeyondRows['baseline'];
    resumed?: NonNullable<ScoresBeyondRows['resumed']> & { readonly check: PassResult['resumeCheck'] };
  } = {};
  let startedGreen = true;
  const rollback = passRollback(inner, {
    onRecovered: async (id, iteration) => {
      if (mode !== 'function') return;
      try {
        const rescored = await harness.score({ iteration, signal, resumeCheck: true });
        const gates = rescored.gates ? { gates: rescored.gates } : {};
        beyond.resumed = { id, ...gates, check: { ...gates, composite: rescored.composite } };
        startedGreen = rescored.gates?.testsGreen ?? startedGreen;
      } catch (error) {
        beyond.resumed = { id, check: { error: (error as Error)?.message ?? String(error) } };
      }
    },
  });

  const log = await createPassResultsLog({
    path: join(runDir, 'results.tsv'),
    header: resultsHeader(mode, harness.dimensions),
    dimensions: harness.dimensions,
    clock,
    snapshotOf: (r) =>
      r.status === 'baseline' ? r.candidateId || rollback.baselineId() : rollback.preEditCopies(r.iteration),
    keptIdOf: async (iteration) =>
      (await readdir(inner.snapshotsDir).catch(() => [] as string[]))
        .filter((n) => KEPT_DIR_PATTERN.test(n) && n.startsWith(`${pad3(iteration)}-kept-`))
        .sort()
        .at(-1) ?? '',
  });
  const rubricSha256 = await computeRubricFingerprint(options.rubricFiles);
  const harnessFiles = options.harnessFiles ?? [];
  const harnessSha256 = await harnessFilesFingerprint(harnessFiles);
  await recordRubricAtStart({
    statePath,
    mode,
    taskId: options.taskId,
    rubricSha256,
    resumed: log.resumed,
    write: writeState,
    resultsPath: log.path,
  });

  const refusedEdits: RefusedEdit[] = [];
  const stateStore = createPassStateStore({
    path: statePath,
    workspace: options.workspace,
    mode,
    taskId: options.taskId,
    resumed: log.resumed,
    write: writeState,
    resultsPath: log.path,
  });
  let final: PassResult | undefined;
  const onStop = async (summary: LoopSummary, state: LoopState) => {
    if (summary.halted?.code === 'RESTORE_FAILED' && log.rows().at(-1)?.status !== 'restore-failed') {
      // The stop's restore of the best failed (seed 002 on-stop step 1): the loud status is a row too,
      // before the summary and state.json.
      const description =
        `restore of the best kept ` +
        `version ${summary.bestId || rollback.baselineId()} ` +
        `failed: ${summary.halted.note}`;
      const record: IterationRecord = {
        iteration: summary.iterations + 1,
        candidateId: '',
        score: null,
        status: 'halted',
        label: 'restore-failed',
        description,
      };
      await log.append(record);
      out(formatIterationLine(record.iteration, 'restore-failed', null, null, record.description));
    }
    const bestId = summary.bestId || rollback.baselineId();
    final = buildPassResult({
      summary,
      state,
      beyond,
      refusedEdits,
      bestId,
      rubricSha256,
      mode,
      resumed: log.resumed,
      resultsPath: log.path,
      statePath,
    });
    out(final.summaryText);
    const { entry, history } = finalStateOf(final, {
      taskId: options.taskId,
      resultsPath: log.path,
      utc: new Date(clock.now()).toISOString(),
    });
    stateStore.finish({ entry, history, files: inner.files(), result: final });
  };

  const onBaseline = (score: PassScore) => void (beyond.baseline = score);
  const { harness: engineH, scorer } = engineHarness(harness, { config, testsGate: () => startedGreen, onBaseline });
  const loop = createLoop({
    proposer: engineProposer(options.proposer, { config, files: inner.files, rows: log.rows }),
    harness: engineH,
    scorer,
    rollback,
    stop: anyOf(
      passStopPolicy({
        config,
        beyond: () => beyond,
        targetMet,
        ...(options.cost ? { maxPerRunUsd: options.cost.maxPerRunUsd } : {}),
      }),
      ...(options.stop ? [options.stop] : []),
    ),
    results: {
      ...log,
      // The engine reads results.tsv once (resume); the pass notes whether its baseline was green.
      read: async () => {
        const rows = await log.read();
        startedGreen = rows[0]?.gates?.tests ?? true;
        return rows;
      },
      // Seed 002 setup steps 5-6: the baseline is scored, THEN snapshotted, then logged as row 0.
      append: async (record) => {
        if (record.status === 'baseline') await rollback.start();
        await log.append(record);
      },
    },
    stateStore,
    onStop,
    ...(options.cost ? { cost: () => ({ usd: options.cost!.meter.spentUsd() }) } : {}),
    clock,
    signal,
    keep: {
      policy: tier1Gates(options.keepPolicy ?? strictImprovement(), { status: 'reverted-redtest' }),
      guards: [
        needsHumanGuard(),
        safetyGuard({ safety: options.safety, surface: inner.files, refused: (e) => refusedEdits.push(e) }),
        surfaceGuard({ surface: inner.files }),
        rubricGuard({ rubricFiles: options.rubricFiles, expected: rubricSha256 }),
        ...(harnessFiles.length > 0 ? [harnessFilesGuard({ files: harnessFiles, expected: harnessSha256 })] : []),
        ...(options.guards ?? []),
      ],
    },
    recovery: { maxProposerFailures: Number.MAX_SAFE_INTEGER },
  });

  let best = Number.NaN;
  const line = (record: IterationRecord, previousBest: number) => {
    const delta = record.score === null ? null : record.status === 'baseline' ? 0 : record.score - previousBest;
    out(
      formatIterationLine(
        record.iteration,
        statusOf(record),
        record.score,
        delta,
        record.status === 'baseline' ? 'baseline' : describeRow(record),
      ),
    );
  };
  loop.on('resumed', (e) => void (best = e.best));
  loop.on('baseline', (e) => {
    best = e.record.score!;
    startedGreen = e.record.gates?.tests ?? true;
    line(e.record, best);
  });
  loop.on('kept', (e) => {
    line(e.record, e.previousBest);
    best = e.record.score!;
  });
  for (const type of ['reverted', 'crash', 'halted'] as const) loop.on(type, (e) => line(e.record, best));

  try {
    await loop.run();
  } catch (error) {
    if (!final || !isLoopError(error) || !(error.code === 'RESTORE_FAILED' || error.code === 'HARNESS_TAMPERED'))
      throw error;
    final = { ...final, error };
  }
  return final!;
}
