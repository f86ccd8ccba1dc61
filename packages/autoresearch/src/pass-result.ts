import { LoopError, type LoopState, type LoopSummary } from '@loop/core';
import { formatSummary, type PassSummary } from './format.js';
import type { PassResult, RefusedEdit } from './pass-options.js';
import { bestScoreOf, type ScoresBeyondRows } from './pass-stop.js';

const STEP: Record<string, string> = { design: 'AR_DESIGN', function: 'AR_FUNCTION', acceptance: 'AR_ACCEPTANCE' };
/** Halts that are loud failures (the summary's `HALTED:` line, state.json `status`); needs-human is a clean stop. */
const LOUD = new Set(['restore-failed', 'rubric-tampered', 'harness-tampered']);

/** The note of a guard's halt without the guard's name (`<guard>: <note>`). */
const withoutGuard = (note: string) => note.replace(/^[\w-]+: /, '');

/** The pass's result and stop summary from the engine's summary and rows (seed 002 on-stop step 2). */
export function buildPassResult(o: {
  summary: LoopSummary;
  state: LoopState;
  beyond: ScoresBeyondRows & { resumed?: { check: PassResult['resumeCheck'] } };
  refusedEdits: readonly RefusedEdit[];
  bestId: string;
  rubricSha256: string;
  mode: PassSummary['mode'];
  resumed: boolean;
  resultsPath: string;
  statePath: string;
}): PassResult {
  const { summary, state } = o;
  // The engine's counters by class; seed 002 counts a guard's `crash` label (class reverted) as a
  // crash, a user guard's own label in neither, and reverted-redtest within reverted.
  const labelled = (label: (l: string) => boolean) =>
    state.history.filter((r) => r.status === 'reverted' && r.label !== undefined && label(r.label)).length;
  const guardCrashes = labelled((l) => l === 'crash');
  const counts = {
    kept: summary.counts.kept,
    reverted: summary.counts.reverted - labelled((l) => l !== 'reverted-redtest'),
    revertedRedtest: labelled((l) => l === 'reverted-redtest'),
    crash: summary.counts.crash + guardCrashes,
  };
  const h = summary.halted;
  const restoreFailed = h?.code === 'RESTORE_FAILED';
  const guardHalt = h && !restoreFailed ? { status: h.status, message: withoutGuard(h.note) } : undefined;
  const stopReason = guardHalt ? guardHalt.status : summary.stop.reason;
  const stopMessage = guardHalt ? guardHalt.message : restoreFailed ? h.note : summary.stop.message;
  const halted = restoreFailed
    ? 'restore-failed'
    : guardHalt && LOUD.has(guardHalt.status)
      ? guardHalt.status
      : undefined;
  const error = restoreFailed
    ? new LoopError('RESTORE_FAILED', h.note)
    : halted
      ? new LoopError('HARNESS_TAMPERED', guardHalt!.message)
      : undefined;
  const firstOfRun = summary.iterations - summary.iterationsThisRun + 1;
  const passSummary: PassSummary = {
    mode: o.mode,
    startComposite: summary.baseline,
    bestComposite: summary.best,
    counts,
    topKept: summary.kept
      .filter((k) => k.iteration >= firstOfRun)
      .map((k) => ({ iter: k.iteration, delta: k.improvement, description: k.description }))
      .sort((a, b) => b.delta - a.delta),
    stopReason,
    stopMessage,
    rubricSha256: o.rubricSha256,
    ...(halted ? { halted } : {}),
  };
  const bestGates = bestScoreOf(state, () => o.beyond)?.gates;
  const resumeCheck = o.beyond.resumed?.check;
  return {
    ...passSummary,
    summaryText: formatSummary(passSummary),
    resultsPath: o.resultsPath,
    statePath: o.statePath,
    bestId: o.bestId,
    iterationsThisRun: summary.iterationsThisRun,
    resumed: o.resumed,
    ...(error ? { error } : {}),
    refusedEdits: o.refusedEdits,
    ...(resumeCheck ? { resumeCheck } : {}),
    ...(bestGates ? { bestGates } : {}),
  };
}

/**
 * What the pass's final state.json write records (seed 002 on-stop step 3): the `autoresearch.<mode>`
 * entry and the `step_history` entry, from the pass's result.
 */
export function finalStateOf(
  final: PassResult,
  o: { taskId: string; resultsPath: string; utc: string },
): { entry: Record<string, unknown>; history: Record<string, unknown> } {
  const { utc } = o;
  const entry = {
    task_id: o.taskId,
    rubric_sha256: final.rubricSha256,
    start_score: final.startComposite,
    best_score: final.bestComposite,
    counts: final.counts,
    stop_reason: final.stopReason,
    status: final.halted ?? 'stopped',
    best_snapshot: final.bestId,
    results: o.resultsPath,
    ...(final.bestGates ? { best_gates: final.bestGates } : {}),
    ...(final.refusedEdits.length > 0 ? { refused_edits: final.refusedEdits } : {}),
    updated_at: utc,
  };
  const history = {
    step: STEP[final.mode]!,
    start_score: final.startComposite,
    best_score: final.bestComposite,
    stop_reason: final.stopReason,
    utc,
  };
  return { entry, history };
}
