import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { acquireLock, isLoopError, LoopError, readJson, systemClock, writeJsonAtomic, type Clock, type MaybePromise } from '@loop/core';
import { createSnapshotRollback, type SnapshotCheckpoint, type SnapshotRollback } from '@loop/rollback-snapshot';
import type { PassConfig } from './config.js';
import { formatIterationLine, formatScore, formatSummary, type KeptChangeSummary, type PassSummary } from './format.js';
import type { PassHarness, PassScore, Tier1Gates } from './pass-harness.js';
import { openResultsFile, resultsHeader, type ResultsRow } from './results-tsv.js';
import { computeRubricFingerprint } from './rubric-fingerprint.js';
import { flowsTouched, type SafetyOptions, type SafetyQuestion } from './safety.js';
import { consecutiveReverts, countsAsRevert, type AutoresearchStatus } from './statuses.js';
import { slugify } from '@loop/rollback-snapshot';

/** ONE focused edit (seed 002 loop step 2). */
export interface EditIdea {
  /** One line: what the edit does (the chat line's description). */
  readonly description: string;
  /** The mutable files it will touch (relative); only these are snapshotted. @default every mutable file */
  readonly files?: readonly string[];
  /** The `<short-kebab-of-the-idea>` for the snapshot name. @default slug of the description */
  readonly slug?: string;
  /** Safety-critical flows the proposer knows the edit touches (matched against `safety.flows` with the touched files). */
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
  /**
   * ASK before edits touching {{SAFETY_CRITICAL_FLOWS}}, respecting {{CRITICALITY_PROFILE}} (seed 002
   * safety brakes). An edit whose files or declared flows touch a listed flow is put to `safety.asker`
   * after `plan` and before the pre-edit snapshot; a refusal skips it (see {@link RefusedEdit}).
   * @default no flows: nothing is asked
   */
  safety?: SafetyOptions;
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
  if (config.mode === 'function') return best.composite >= config.kpiTarget && !!best.gates?.testsGreen && !!best.gates.coverageOk;
  const values = Object.values(best.dimensions);
  return values.length > 0 && values.every((v) => v >= config.kpiTarget);
}

/**
 * Runs one autoresearch pass, design (AR-1) or function (AR-2), to a stop (seed 002 loop skeleton).
 *
 * Setup (once): results.tsv opened (resumed from the next iter when it has data rows, never
 * re-baselined); rubric fingerprint recorded; baseline scored, snapshotted (`000-baseline-<UTC>`) and
 * logged as row 0; rubric_sha256 is recorded in state.json at start, and a resumed pass whose
 * fingerprint differs from the recorded one refuses to start; a resumed function pass re-runs the
 * harness once on the restored best so "target met" uses measured Tier-1 gates. Each iteration: plan
 * one edit (`needsHuman` stops the pass) → ASK before an edit touching a safety-critical flow
 * (`safety`; a refusal is a `reverted` row, nothing applied) → pre-edit snapshot of the files it touches →
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
  await recordRubricAtStart({ statePath, mode, taskId: options.taskId, rubricSha256, resumed: results.resumed, write: writeState, resultsPath: results.path });
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
  let resumeCheck: ResumeCheck | undefined;
  const refusedEdits: RefusedEdit[] = [];

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
      bestScore = { composite: best, dimensions: dims };
    }
    const started = await rollback.start(); // reuses the baseline directory: no re-baseline
    bestId = started.keptId;
    await rollback.recover(bestId); // discard what an interrupted iteration left behind
    if (mode === 'function') {
      // results.tsv does not carry the Tier-1 gates: re-run the harness on the restored best so
      // "target met" (composite ≥ target with all Tier-1 gates green) is checked on measured gates.
      try {
        const rescored = await harness.score({ iteration: next - 1, signal, resumeCheck: true });
        resumeCheck = { ...(rescored.gates ? { gates: rescored.gates } : {}), composite: rescored.composite };
        if (bestScore && rescored.gates) bestScore = { ...bestScore, gates: rescored.gates };
        baselineGreen = rescored.gates?.testsGreen ?? true;
      } catch (error) {
        resumeCheck = { error: (error as Error)?.message ?? String(error) };
      }
    }
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
      if (idea.needsHuman) throw new NeedsHumanSignal(idea.needsHuman.kind, idea.needsHuman.detail);
      const refusal = await askBeforeEdit(options.safety, idea, iteration, rollback.files(), signal);
      if (refusal) {
        refusedEdits.push(refusal);
        throw new RefusedEditSignal(refusal);
      }
      cp = await rollback.checkpoint(iteration, { ...(idea.files ? { files: idea.files } : {}), slug: idea.slug ?? idea.description });
      const rounds = config.internalRounds;
      for (let round = 0; round < rounds; round += 1) await proposer.apply(idea, { iteration, round, rounds });
    } catch (error) {
      if (error instanceof NeedsHumanSignal) {
        stop = { reason: 'needs-human', message: `iter ${iteration} "${idea.description}" needs a ${error.kind}: ${error.message} — surfaced, not added; nothing was applied` };
        break;
      }
      if (error instanceof RefusedEditSignal) {
        status = 'reverted';
        description = `${idea.description} (skipped: ASK refused for safety-critical flow ${error.refusal.flows.join(', ')}: ${error.refusal.reason})`;
      } else {
        status = 'crash';
        description = `${idea.description} (crash: ${cp ? 'proposer failed' : 'plan or ASK failed'}: ${(error as Error)?.message ?? String(error)})`;
      }
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
    refusedEdits,
    ...(resumeCheck ? { resumeCheck } : {}),
    ...(bestScore?.gates ? { bestGates: bestScore.gates } : {}),
  };
  await writeStateLast(result, options.taskId, rollback.files(), options.workspace, statePath, writeState, clock);
  return result;
}

const STEP: Record<string, string> = { design: 'AR_DESIGN', function: 'AR_FUNCTION', acceptance: 'AR_ACCEPTANCE' };

/** Writes state.json last for a design or function pass (see {@link writePipelineStateLast}). */
async function writeStateLast(result: PassResult, taskId: string, files: readonly string[], workspace: string, path: string, write: (p: string, d: unknown) => Promise<void>, clock: Clock): Promise<void> {
  const utc = new Date(clock.now()).toISOString();
  const entry = {
    task_id: taskId,
    rubric_sha256: result.rubricSha256,
    start_score: result.startComposite,
    best_score: result.bestComposite,
    counts: result.counts,
    stop_reason: result.stopReason,
    status: result.halted ?? 'stopped',
    best_snapshot: result.bestId,
    results: result.resultsPath,
    ...(result.bestGates ? { best_gates: result.bestGates } : {}),
    ...(result.refusedEdits.length > 0 ? { refused_edits: result.refusedEdits } : {}),
    updated_at: utc,
  };
  await writePipelineStateLast({
    path,
    mode: result.mode,
    entry,
    history: { step: STEP[result.mode]!, start_score: result.startComposite, best_score: result.bestComposite, stop_reason: result.stopReason, utc },
    files,
    workspace,
    write,
    result,
    resultsPath: result.resultsPath,
  });
}

/**
 * Writes `.aid/pipeline/state.json` as a pass's FINAL action (seed 002 on-stop step 3): merges
 * `autoresearch.<mode>` = `entry` and appends `history` to `step_history` in the existing file,
 * writes it via `write` (temp + rename by default), re-reads it and checks its mtime is not older
 * than the newest of `files` (relative to `workspace`).
 *
 * @throws {LoopError} `STATE_WRITE_FAILED` (the seed's `state-write-failed`) with `details.result`.
 */
export async function writePipelineStateLast(o: {
  /** state.json path. */
  path: string;
  /** The pass. */
  mode: string;
  /** Merged as `autoresearch.<mode>`. */
  entry: Record<string, unknown>;
  /** Appended to `step_history`. */
  history: Record<string, unknown>;
  /** Mutable files (relative) whose mtime state.json must not be older than. */
  files: readonly string[];
  /** Workspace the files are relative to. */
  workspace: string;
  /** The writer. @default writeJsonAtomic */
  write?: (p: string, d: unknown) => Promise<void>;
  /** Carried in the error's details. */
  result: unknown;
  /** Named in the error message. */
  resultsPath: string;
}): Promise<void> {
  const { path } = o;
  const write = o.write ?? writeJsonAtomic;
  const fail = (why: string, cause?: unknown) =>
    new LoopError('STATE_WRITE_FAILED', `[loop] [autoresearch] state-write-failed: ${path}: ${why}; the pass's results are in ${o.resultsPath}: write state.json again before re-running the pipeline`, { cause, details: { path, result: o.result } });
  let existing: Record<string, unknown> = {};
  try {
    const read = await readJson(path);
    if (read && typeof read === 'object') existing = read as Record<string, unknown>;
  } catch {
    existing = {};
  }
  const ar = (existing.autoresearch && typeof existing.autoresearch === 'object' ? existing.autoresearch : {}) as Record<string, unknown>;
  const history = Array.isArray(existing.step_history) ? existing.step_history : [];
  const data = { ...existing, autoresearch: { ...ar, [o.mode]: o.entry }, step_history: [...history, o.history] };
  try {
    await write(path, data);
    const reread = await readJson(path);
    if (!reread || typeof reread !== 'object') throw new Error('re-read did not parse');
  } catch (error) {
    throw isLoopError(error, 'STATE_WRITE_FAILED') ? fail(error.message, error) : fail((error as Error)?.message ?? String(error), error);
  }
  const stateMtime = (await stat(path)).mtimeMs;
  let newest = 0;
  for (const f of o.files) newest = Math.max(newest, await stat(join(o.workspace, f)).then((st) => st.mtimeMs, () => 0));
  if (stateMtime < newest) throw fail(`its mtime ${new Date(stateMtime).toISOString()} is older than the newest source file ${new Date(newest).toISOString()}`);
}

class RefusedEditSignal extends Error {
  constructor(readonly refusal: RefusedEdit) {
    super(refusal.reason);
  }
}

/** ASK before an edit touching safety-critical flows; returns the refusal, or undefined to proceed. */
async function askBeforeEdit(safety: SafetyOptions | undefined, idea: EditIdea, iteration: number, surface: readonly string[], signal: AbortSignal): Promise<RefusedEdit | undefined> {
  if (!safety || safety.flows.length === 0) return undefined;
  if (!(safety.askUnderProfile ?? (() => true))(safety.profile)) return undefined;
  const files = idea.files ?? surface;
  const flows = flowsTouched(safety.flows, files, idea.flows ?? []);
  if (flows.length === 0) return undefined;
  const question: SafetyQuestion = { iteration, description: idea.description, files, flows, slug: slugify(idea.slug ?? idea.description), ...(safety.profile !== undefined ? { profile: safety.profile } : {}) };
  const answer = await safety.asker.ask(question, signal);
  if (answer.approved) return undefined;
  return { iter: iteration, description: idea.description, flows, files, reason: answer.reason ?? 'refused' };
}

class NeedsHumanSignal extends Error {
  constructor(readonly kind: string, detail: string) {
    super(detail);
  }
}

/**
 * Setup step 7: records `autoresearch.<mode>.{task_id, rubric_sha256}` in state.json at pass start
 * (best effort: the final state.json write is the authoritative, loudly checked one). On resume of
 * the same task, a different recorded hash means the rubric changed between runs: every score in
 * results.tsv is incomparable with new ones, so the pass refuses to start.
 */
async function recordRubricAtStart(o: { statePath: string; mode: string; taskId: string; rubricSha256: string; resumed: boolean; write: (p: string, d: unknown) => Promise<void>; resultsPath: string }): Promise<void> {
  let existing: Record<string, unknown> = {};
  try {
    const read = await readJson(o.statePath);
    if (read && typeof read === 'object') existing = read as Record<string, unknown>;
  } catch {
    existing = {};
  }
  const ar = (existing.autoresearch && typeof existing.autoresearch === 'object' ? existing.autoresearch : {}) as Record<string, unknown>;
  const prev = (ar[o.mode] && typeof ar[o.mode] === 'object' ? ar[o.mode] : {}) as Record<string, unknown>;
  if (o.resumed && prev.task_id === o.taskId && typeof prev.rubric_sha256 === 'string' && prev.rubric_sha256 !== o.rubricSha256) {
    throw new LoopError(
      'HARNESS_TAMPERED',
      `[loop] [autoresearch] the rubric changed since this pass started (recorded sha256 ${prev.rubric_sha256.slice(0, 12)}, now ${o.rubricSha256.slice(0, 12)}): the scores in ${o.resultsPath} are incomparable with new ones; restore the rubric or move results.tsv away to start a new pass`,
      { details: { expected: prev.rubric_sha256, actual: o.rubricSha256 } },
    );
  }
  const entry = { ...(prev.task_id === o.taskId ? prev : {}), task_id: o.taskId, rubric_sha256: o.rubricSha256 };
  try {
    await o.write(o.statePath, { ...existing, autoresearch: { ...ar, [o.mode]: entry } });
  } catch {
    // best effort: the final write surfaces state-write-failed loudly
  }
}
