import type { Harness, RunContext, RunRecord } from '../contracts/harness.js';
import type { CandidateData } from '../contracts/iteration-record.js';
import type { ScoreResult, Scorer } from '../contracts/scorer.js';
import type { Clock } from '../contracts/types.js';
import { systemClock } from '../contracts/types.js';

/**
 * What {@link measure} found: the run record, its score (a crash is data), the merged record data and the wall time.
 */
export interface Measurement {
  /** The harness's record of the run. */
  readonly run: RunRecord;
  /** The scorer's result: a finite score, or a crash with its reason (never an exception). */
  readonly result: ScoreResult;
  /** The run record's and the score's `data`, merged (see {@link CandidateData}); `undefined` when neither had any. */
  readonly data: CandidateData | undefined;
  /** Wall time of the run and its scoring, in ms (the injected clock). */
  readonly durationMs: number;
}

/**
 * Runs `harness` once on the current state and scores it: the one evaluation every engine step
 * makes (the baseline, each candidate, each re-sample), exported for a preset that measures a
 * state outside any candidate (collie's Stage 2 observation and Stage 3.2 validation reruns: seed
 * 000), so that nobody calls `harness.run` and `scorer.score` by hand. Records nothing: no row,
 * no state, no rollback.
 *
 * @param context - what the harness is told (`iteration`, `signal`, `seed`, `repeat`).
 * @param clock - for `durationMs`. @default systemClock
 */
export async function measure(
  harness: Harness,
  scorer: Scorer,
  context: RunContext,
  clock: Clock = systemClock,
): Promise<Measurement> {
  const started = clock.now();
  const run = await harness.run(context);
  const result = await scorer.score(run);
  const data = run.data || result.data ? { ...run.data, ...result.data } : undefined;
  return { run, result, data, durationMs: clock.now() - started };
}
