import { LoopError } from '../contracts/errors.js';
import type { IterationRecord } from '../contracts/iteration-record.js';
import type { EngineState } from '../contracts/state-store.js';
import { summarizeSamples } from '../stats/statistics.js';
import { countersOf } from './counters.js';
import type { Engine } from './engine.js';
import type { SessionMemory } from './session-memory.js';

const numbers = (v: unknown): number[] | undefined =>
  Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x))
    ? (v as number[])
    : undefined;

/** True when the stored full-precision `exact` is what the log shows as `logged`. */
function matches(exact: unknown, logged: number | null, decimals: number | undefined): exact is number {
  if (typeof exact !== 'number' || !Number.isFinite(exact) || logged === null) return false;
  return decimals === undefined
    ? exact === logged
    : Number(exact.toFixed(decimals)) === Number(logged.toFixed(decimals));
}

/**
 * The state store is written after each row, so it never records more iterations than the results
 * log holds, and it names the same baseline. A mismatch means the log was deleted, truncated or
 * edited: resuming would silently re-baseline or misnumber iterations, so refuse.
 *
 * @throws {LoopError} `RESUME_MISMATCH` naming both files.
 */
export function checkAgainstState(e: Engine, rows: readonly IterationRecord[], saved: EngineState | undefined): void {
  if (!saved || typeof saved.iteration !== 'number') return;
  const where = e.results.path ?? 'the results log';
  const statePath = e.store?.path ?? e.store?.name ?? 'the state store';
  const fail = (why: string) => {
    throw new LoopError(
      'RESUME_MISMATCH',
      `[loop] [engine] ${statePath} records iteration ${saved.iteration} ` +
        `but ${why}; restore ${where}, or move ${statePath} and ${where} away to ` +
        `start a new run`,
      { details: { statePath: e.store?.path, resultsPath: e.results.path } },
    );
  };
  if (rows.length === 0) fail(`${where} is missing or empty`);
  if (saved.iteration > rows.length - 1) fail(`${where} holds only ${rows.length - 1} iterations`);
  if (typeof saved.baseline === 'number' && !matches(saved.baseline, rows[0]?.score ?? null, e.results.decimals))
    fail(`the first row of ${where} (${rows[0]?.score}) is not the recorded baseline ${saved.baseline}`);
}

/**
 * Rebuilds the session memory from the rows (the counters are their fold, so a resumed loop decides as
 * an uninterrupted one would), takes full-precision scores and samples from the state store when
 * it names the same incumbent, and lets the rollback discard what an interrupted iteration left.
 *
 * @throws {LoopError} `RESULTS_CORRUPT` when the log does not start with a baseline row.
 */
export async function resumeFrom(
  e: Engine,
  m: SessionMemory,
  rows: readonly IterationRecord[],
  saved: EngineState | undefined,
): Promise<void> {
  const first = rows[0]!;
  if (first.status !== 'baseline' || first.score === null) {
    throw new LoopError(
      'RESULTS_CORRUPT',
      `[loop] [engine] ${e.results.path ?? 'the results log'} does not start ` +
        `with a baseline row; move it away to start a new run`,
      { details: { path: e.results.path } },
    );
  }
  m.history.push(...rows);
  m.counters = countersOf(rows);
  const incumbent = m.counters.incumbent!;
  m.baseline = matches(saved?.baseline, first.score, e.results.decimals) ? saved!.baseline : first.score;
  const sameIncumbent = saved !== undefined && sameId(saved.bestId, incumbent.candidateId);
  // A log may store ids abbreviated (results.tsv: 7 characters of the commit); the state store's is whole.
  m.bestId = sameIncumbent ? saved.bestId : incumbent.candidateId;
  m.best =
    sameIncumbent && matches(saved?.best, incumbent.score, e.results.decimals)
      ? saved!.best
      : (incumbent.score as number);
  m.incumbentGates = incumbent.gates;
  m.incumbentSamples = [m.best];
  m.incumbentDimensions = [incumbent.dimensions];
  const baselineSamples = numbers(saved?.baselineSamples);
  if (baselineSamples) {
    m.baselineSamples = baselineSamples;
    m.baselineSpread = summarizeSamples(baselineSamples);
  }
  const incumbentSamples = numbers(saved?.incumbentSamples);
  if (sameIncumbent && incumbentSamples) {
    m.incumbentSamples = incumbentSamples;
    m.incumbentDimensions = incumbentSamples.map(() => incumbent.dimensions);
  }
  await e.options.rollback.recover?.(m.bestId);
  e.hub.emit({ type: 'resumed', iteration: rows.length - 1, best: m.best, bestId: m.bestId });
}

/**
 * Whether the state store's `saved` id and a row's `logged` id name one state: equal, or `logged` is
 * an abbreviation of `saved` (at least 7 characters, as results.tsv stores a commit).
 */
function sameId(saved: unknown, logged: string): saved is string {
  return typeof saved === 'string' && (saved === logged || (logged.length >= 7 && saved.startsWith(logged)));
}
