import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireLock, isLoopError, LoopError, readJson, systemClock, writeJsonAtomic, type Clock, type MaybePromise } from '@loop/core';
import { createSnapshotRollback, type SnapshotCheckpoint, type SnapshotRollback } from '@loop/rollback-snapshot';
import type { PassConfig } from './config.js';
import { formatIterationLine, formatScore, formatSummary, type KeptChangeSummary, type PassSummary } from './format.js';
import type { PassHarness, PassScore } from './pass-harness.js';
import { openResultsFile, resultsHeader, type ResultsRow } from './results-tsv.js';
import { computeRubricFingerprint } from './rubric-fingerprint.js';
import { consecutiveReverts, countsAsRevert, type AutoresearchStatus } from './statuses.js';

/** ONE focused edit (seed 002 loop step 2). */
export interface EditIdea {
  /** One line: what the edit does (the chat line's description). */
  readonly description: string;
  /** The mutable files it will touch (relative); only these are snapshotted. @default every mutable file */
  readonly files?: readonly string[];
  /** The `<short-kebab-of-the-idea>` for the snapshot name. @default slug of the description */
  readonly slug?: string;
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
  /** Applies (round 0) or refines (rounds 1..) the edit; edits only the mutable source. */
  readonly apply: (idea: EditIdea, context: ApplyContext) => MaybePromise<void>;
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
  /** Picks and applies one edit per iteration. */
  proposer: AutoresearchProposer;
  /** The harness-defining files in a fixed order (criteria YAML, then `.claude/agents/reflection-agent.md`), absolute. */
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
  /** The per-pass success condition. @default design: every dimension ≥ kpiTarget; function: composite ≥ kpiTarget with every Tier-1 gate green */
  targetMet?: (best: PassScore, config: PassConfig) => boolean;
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
}

/** The default per-pass success condition (seed 002 Stop conditions: target met). */
export function defaultTargetMet(best: PassScore, config: PassConfig): boolean {
  if (config.mode === 'function') return best.composite >= config.kpiTarget && !!best.gates?.testsGreen && !!best.gates.coverageOk;
  const values = Object.values(best.dimensions);
  return values.length > 0 && values.every((v) => v >= config.kpiTarget);
}

/**
 * Runs one autoresearch pass, design (AR-1) or function (AR-2), to a stop (seed 002 loop skeleton).
 *
 * Setup (once): results.tsv opened (resumed from the next iter when it has data rows, never
 * re-baselined); rubric fingerprint recorded; baseline scored, snapshotted (`000-baseline-<UTC>`) and
 * logged as row 0. Each iteration: plan one edit → pre-edit snapshot of the files it touches →
 * apply (function mode: `internal_rounds` apply/refine rounds) → rubric re-check (mismatch:
 * `rubric-tampered`, halt) → harness → keep only a strict improvement, else revert (`reverted`; a
 * test gone green-to-red is `reverted-redtest`; a harness error `crash`; a failed restore
 * `restore-failed`, halt) → one results.tsv row → one chat line. Stops on target met, plateau
 * (`max_consecutive_reverts`), iteration cap, cost brake, abort or a halt; then, in this order:
 * restore the best kept version (or the baseline), print the summary, write state.json last
 * (temp + rename, re-read, its mtime not older than the newest mutable file).
 *
 * A lock (`<runDir>/pass.lock`) keeps two passes from driving one task's run directory.
 *
 * @throws {LoopError} `LOCK_HELD` when another pass holds the run directory; `BASELINE_FAILED` when the baseline cannot be scored; `HARNESS_TAMPERED` when a
 *   rubric file is missing at start; `RESULTS_CORRUPT`; `STATE_WRITE_FAILED` (the seed's
 *   `state-write-failed`, with `details.result`) when state.json cannot be written or verified;
 *   `CONFIG_INVALID` for acceptance mode (use `runAcceptanceRound`). `restore-failed` and
 *   `rubric-tampered` are not thrown: they are rows, `result.halted` and `result.error`.
 */
export async function runPass(options: RunPassOptions): Promise<PassResult> {
  if (options.config.mode === 'acceptance') {
    throw new LoopError('CONFIG_INVALID', '[loop] [autoresearch] runPass runs the design and function passes; acceptance mode is runAcceptanceRound');
  }
  const lock = await acquireLock({ path: join(options.workspace, '.aid/pipeline/autoresearch', options.taskId, 'pass') });
  try {
    return await runPassLocked(options);
  } finally {
    await lock.release();
  }
}

async function runPassLocked(options: RunPassOptions): Promise<PassResult> {
  const { config, harness, proposer } = options;
  const mode = config.mode;
  const clock = options.clock ?? systemClock;
  const signal = options.signal ?? new AbortController().signal;
  const out = options.output ?? (() => {});
  const runDir = join(options.workspace, '.aid/pipeline/autoresearch', options.taskId);
  const statePath = options.statePath ?? join(options.workspace, '.aid/pipeline/state.json');
  const writeState = options.writeState ?? writeJsonAtomic;
  const targetMet = options.targetMet ?? defaultTargetMet;
  const rollback = options.rollback ?? createSnapshotRollback({ workspace: options.workspace, runDir, clock, ...(options.files ? { files: options.files } : {}) });
  const header = resultsHeader(mode, harness.dimensions);
  const results = await openResultsFile(join(runDir, 'results.tsv'), header);
  const rubricSha256 = await computeRubricFingerprint(options.rubricFiles);
  const utc = () => new Date(clock.now()).toISOString();
  const dimColumns = (score: PassScore | undefined) =>
    Object.fromEntries(harness.dimensions.map((d) => [d, formatScore(score?.dimensions[d])]));

  const rows: ResultsRow[] = [...results.existing];
  const statuses: string[] = rows.map((r) => r.status);
  const recentReverted: string[] = [];
  const keptThisPass: KeptChangeSummary[] = [];
  let baseline: number;
  let best: number;
  let bestScore: PassScore | undefined;
  let baselineGreen = true;
  let next: number;
  let bestId: string;

  const append = async (row: ResultsRow) => {
    await results.append(row);
    rows.push(row);
    statuses.push(row.status);
  };

  if (results.resumed) {
    const first = rows[0];
    const base = first?.status === 'baseline' ? Number(first.columns.composite) : Number.NaN;
    if (!Number.isFinite(base)) throw new LoopError('RESULTS_CORRUPT', `[loop] [autoresearch] ${results.path} does not start with a baseline row; move it away to start a new pass`, { details: { path: results.path } });
    baseline = base;
    const keptScores = rows.filter((r) => r.status === 'kept').map((r) => Number(r.columns.composite)).filter(Number.isFinite);
    best = Math.max(baseline, ...keptScores); // best_score = max(composite where status='kept'), fallback baseline
    next = Math.max(0, ...rows.map((r) => Number.parseInt(r.iter, 10)).filter(Number.isFinite)) + 1;
    const bestRow = [...rows].reverse().find((r) => (r.status === 'kept' || r.status === 'baseline') && Number(r.columns.composite) === best);
    if (bestRow) {
      const dims = Object.fromEntries(harness.dimensions.map((d) => [d, Number(bestRow.columns[d])]));
      bestScore = { composite: best, dimensions: dims, ...(mode === 'function' ? { gates: { testsGreen: true, coverageOk: best > 0 } } : {}) };
    }
    const started = await rollback.start(); // reuses the baseline directory: no re-baseline
    bestId = started.keptId;
    await rollback.recover(bestId); // discard what an interrupted iteration left behind
  } else {
    const scored = await Promise.resolve()
      .then(() => harness.score({ iteration: 0, signal }))
      .catch((error: unknown) => {
        throw new LoopError('BASELINE_FAILED', `[loop] [autoresearch] the baseline could not be scored by ${harness.name}: ${(error as Error)?.message ?? String(error)}; fix the harness before the pass`, { cause: error });
      });
    const started = await rollback.start();
    baseline = best = scored.composite;
    bestScore = scored;
    baselineGreen = scored.gates?.testsGreen ?? true;
    bestId = started.keptId;
    next = 1;
    await append({ iter: '0', columns: { composite: formatScore(best), delta: '0.00', ...dimColumns(scored) }, status: 'baseline', snapshot: started.baselineId, utc: utc() });
    out(formatIterationLine(0, 'baseline', best, 0, 'baseline'));
  }

  let stop: { reason: string; message: string } | undefined;
  let halted: { status: AutoresearchStatus; error: LoopError } | undefined;
  let iterationsThisRun = 0;

  const checkStop = (): { reason: string; message: string } | undefined => {
    if (signal.aborted) return { reason: 'aborted', message: 'human interrupt' };
    if (options.cost && options.cost.meter.spentUsd() >= options.cost.maxPerRunUsd) {
      return { reason: 'cost-brake', message: `spent ${options.cost.meter.spentUsd().toFixed(2)} USD of max_per_run_usd ${options.cost.maxPerRunUsd}` };
    }
    if (bestScore && targetMet(bestScore, config)) return { reason: 'target-met', message: `best ${formatScore(best)} meets kpi_target ${config.kpiTarget}` };
    const reverts = consecutiveReverts(statuses);
    if (reverts >= config.maxConsecutiveReverts) return { reason: 'plateau', message: `${reverts} consecutive reverts (max_consecutive_reverts ${config.maxConsecutiveReverts})` };
    if (next > config.maxIterations) return { reason: 'max-iterations', message: `reached max_iterations ${config.maxIterations}` };
    return undefined;
  };

  while (!(stop = checkStop())) {
    const iteration = next;
    const bestBefore = best;
    let idea: EditIdea = { description: '(no idea)' };
    let cp: SnapshotCheckpoint | undefined;
    let status: AutoresearchStatus;
    let score: PassScore | undefined;
    let description: string;
    try {
      idea = await proposer.plan({ iteration, best, baseline, files: rollback.files(), rows, recentReverted });
      cp = await rollback.checkpoint(iteration, { ...(idea.files ? { files: idea.files } : {}), slug: idea.slug ?? idea.description });
      const rounds = config.internalRounds;
      for (let round = 0; round < rounds; round += 1) await proposer.apply(idea, { iteration, round, rounds });
    } catch (error) {
      status = 'crash';
      description = `${idea.description} (crash: proposer failed: ${(error as Error)?.message ?? String(error)})`;
    }
    description ??= idea.description;
    status ??= await (async (): Promise<AutoresearchStatus> => {
      const now = await computeRubricFingerprint(options.rubricFiles).catch(() => 'unreadable');
      if (now !== rubricSha256) {
        halted = { status: 'rubric-tampered', error: new LoopError('HARNESS_TAMPERED', `[loop] [autoresearch] the rubric changed mid-pass (sha256 ${rubricSha256.slice(0, 12)} -> ${now.slice(0, 12)}): every score across the change is incomparable; pass halted`, { details: { expected: rubricSha256, actual: now, files: options.rubricFiles } }) };
        description = `${idea.description} (not scored: rubric-tampered)`;
        return 'rubric-tampered';
      }
      try {
        score = await harness.score({ iteration, signal });
      } catch (error) {
        description = `${idea.description} (crash: ${(error as Error)?.message ?? String(error)})`;
        return 'crash';
      }
      if (mode === 'function' && baselineGreen && score.gates && !score.gates.testsGreen) return 'reverted-redtest';
      return score.composite > best ? 'kept' : 'reverted'; // strict improvement: equal scores revert
    })();

    if (status === 'kept') {
      bestId = await rollback.keep(cp!, undefined);
      best = score!.composite;
      bestScore = score;
      keptThisPass.push({ iter: iteration, delta: best - bestBefore, description });
    } else if (cp) {
      try {
        await rollback.revert(cp, { iteration });
      } catch (error) {
        if (!isLoopError(error, 'RESTORE_FAILED')) throw error;
        halted = { status: 'restore-failed', error };
        description = `${description} (restore-failed: ${error.message})`;
        status = 'restore-failed';
      }
    }
    if (countsAsRevert(status)) recentReverted.push(idea.description);
    const composite = score ? score.composite : null;
    await append({
      iter: String(iteration),
      columns: { composite: formatScore(composite), delta: formatScore(composite === null ? null : composite - bestBefore), ...dimColumns(score) },
      status,
      snapshot: cp && cp.copies.length > 0 ? cp.copies.map((c) => c.snapshot).join(',') : '-',
      utc: utc(),
    });
    out(formatIterationLine(iteration, status, composite, composite === null ? null : composite - bestBefore, description));
    next += 1;
    iterationsThisRun += 1;
    if (halted) {
      stop = { reason: halted.status, message: halted.error.message };
      break;
    }
  }

  // On stop, in this order: (1) restore the best kept version, (2) summarise, (3) state.json last.
  try {
    await rollback.restoreBest(bestId);
  } catch (error) {
    if (!isLoopError(error, 'RESTORE_FAILED')) throw error;
    halted = { status: 'restore-failed', error };
    out(`restore-failed: ${error.message}`);
  }
  const counts = { kept: 0, reverted: 0, revertedRedtest: 0, crash: 0 };
  for (const s of statuses) {
    if (s === 'kept') counts.kept += 1;
    else if (s === 'reverted' || s === 'reverted-redtest') counts.reverted += 1;
    if (s === 'reverted-redtest') counts.revertedRedtest += 1;
    if (s === 'crash') counts.crash += 1;
  }
  const keptAll: KeptChangeSummary[] = [...keptThisPass].sort((a, b) => b.delta - a.delta);
  const summary: PassSummary = {
    mode,
    startComposite: baseline,
    bestComposite: best,
    counts,
    topKept: keptAll,
    stopReason: stop.reason,
    stopMessage: stop.message,
    rubricSha256,
    ...(halted ? { halted: halted.status } : {}),
  };
  const summaryText = formatSummary(summary);
  out(summaryText);
  const result: PassResult = {
    ...summary,
    summaryText,
    resultsPath: results.path,
    statePath,
    bestId,
    iterationsThisRun,
    resumed: results.resumed,
    ...(halted ? { error: halted.error } : {}),
  };
  await writeStateLast(result, rollback.files(), options.workspace, statePath, writeState, clock);
  return result;
}

const STEP: Record<string, string> = { design: 'AR_DESIGN', function: 'AR_FUNCTION', acceptance: 'AR_ACCEPTANCE' };

/**
 * Writes state.json as the pass's final action (seed 002 on-stop step 3): merges
 * `autoresearch.<mode>` (rubric_sha256, scores, counts, stop) and a `step_history` entry into the
 * existing file, writes it via temp + rename, re-reads it and checks its mtime is not older than
 * the newest mutable file.
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` (the seed's `state-write-failed`) with `details.result`.
 */
async function writeStateLast(result: PassResult, files: readonly string[], workspace: string, path: string, write: (p: string, d: unknown) => Promise<void>, clock: Clock): Promise<void> {
  const fail = (why: string, cause?: unknown) =>
    new LoopError('STATE_WRITE_FAILED', `[loop] [autoresearch] state-write-failed: ${path}: ${why}; the pass's results are in ${result.resultsPath}: write state.json again before re-running the pipeline`, { cause, details: { path, result } });
  let existing: Record<string, unknown> = {};
  try {
    const read = await readJson(path);
    if (read && typeof read === 'object') existing = read as Record<string, unknown>;
  } catch {
    existing = {};
  }
  const ar = (existing.autoresearch && typeof existing.autoresearch === 'object' ? existing.autoresearch : {}) as Record<string, unknown>;
  const history = Array.isArray(existing.step_history) ? existing.step_history : [];
  const utc = new Date(clock.now()).toISOString();
  const entry = {
    rubric_sha256: result.rubricSha256,
    start_score: result.startComposite,
    best_score: result.bestComposite,
    counts: result.counts,
    stop_reason: result.stopReason,
    status: result.halted ?? 'stopped',
    best_snapshot: result.bestId,
    results: result.resultsPath,
    updated_at: utc,
  };
  const data = {
    ...existing,
    autoresearch: { ...ar, [result.mode]: entry },
    step_history: [...history, { step: STEP[result.mode], start_score: result.startComposite, best_score: result.bestComposite, stop_reason: result.stopReason, utc }],
  };
  try {
    await write(path, data);
    const reread = await readJson(path);
    if (!reread || typeof reread !== 'object') throw new Error('re-read did not parse');
  } catch (error) {
    throw isLoopError(error, 'STATE_WRITE_FAILED') ? fail(error.message, error) : fail((error as Error)?.message ?? String(error), error);
  }
  const stateMtime = (await stat(path)).mtimeMs;
  let newest = 0;
  for (const f of files) newest = Math.max(newest, await stat(join(workspace, f)).then((s) => s.mtimeMs, () => 0));
  if (stateMtime < newest) throw fail(`its mtime ${new Date(stateMtime).toISOString()} is older than the newest source file ${new Date(newest).toISOString()}`);
}
