import type { IterationRecord, IterationStatus, LoopState } from '@loop/core';
import type { StatusCounts } from '@loop/core/contracts';

/** One finished iteration as the stop checks see it (from state.json `iterations[]`). */
export interface IterationFacts {
  /** 1, 2, ... */
  readonly iter: number;
  /** The scalar after the iteration's rerun, or null when none was extracted. */
  readonly scalar: number | null;
  /** scalar_after − scalar_before, or null when either is missing. */
  readonly delta: number | null;
  /** True when the rerun was all green (exit code 0). */
  readonly allGreen: boolean;
  /** A signature of the iteration's error (null when it had none). */
  readonly errorSignature: string | null;
  /** How many files the iteration's fixes changed; null when not measured (never counts as "no changes"). */
  readonly filesChanged: number | null;
  /** True when Stage 6's rollback matrix reverted at least one of its FIXes. @default false */
  readonly reverted?: boolean;
}

/**
 * The loop state the SC policies read: a real core {@link LoopState} built from collie's
 * iterations (see {@link collieStopState}) plus collie's facts. A core policy reads it as a plain
 * LoopState; the SC policies read `collie` too and never stop a state without it.
 */
export interface CollieStopState extends LoopState {
  readonly collie: {
    readonly iterations: readonly IterationFacts[];
    readonly baselineScalar: number | null;
    readonly tokensUsed: number;
    /** `unlimited` is null. */
    readonly maxTokens: number | null;
    readonly maxIterations: number;
    /** `unlimited` is null. */
    readonly maxWallclockMin: number | null;
    readonly successCriterion: {
      readonly type: 'all_green' | 'scalar_threshold' | 'convergence_delta' | 'custom';
      readonly threshold: number | null;
    };
    /**
     * How SC3 picks ε: `ordinal` (integer 1-5 scalars, ε = 0) or `continuous` (ε = 0.01 × |baseline|). @default
     * detected
     */
    readonly scalarKind?: 'ordinal' | 'continuous';
  };
}

/**
 * A row's class: no scalar is a `crash` (its error signature, or "no scalar"); a rolled-back iteration `reverted`; else
 * `kept`.
 */
function statusOf(i: IterationFacts): IterationStatus {
  if (i.scalar === null) return 'crash';
  return i.reverted ? 'reverted' : 'kept';
}

/** How many rows at the end of `xs` satisfy `p`. */
function trailing<T>(xs: readonly T[], p: (x: T) => boolean): number {
  let n = 0;
  for (let i = xs.length - 1; i >= 0 && p(xs[i]!); i -= 1) n += 1;
  return n;
}

/**
 * The real {@link LoopState} of a collie run after its last finished iteration (seed 000 scalars
 * are maximised): history = the baseline row plus one row per iteration (score = its rerun scalar;
 * status kept / reverted / crash, `error` = its error signature, `changedFiles` known only when
 * none changed, `gates.all_green` = exit code 0); counts, the consecutive counters (same error,
 * no file change, crashes, non-improvements: a reverted or crashed iteration never improves), the best trail and the
 * token cost
 * (`cost.tokens`, SC4) are computed from the rows, so core's stop policies read what happened.
 */
export function collieStopState(
  collie: CollieStopState['collie'],
  startedAt: number,
  now: number,
  signal: AbortSignal = new AbortController().signal,
): CollieStopState {
  const its = collie.iterations;
  const history: IterationRecord[] = [
    { iteration: 0, candidateId: '', score: collie.baselineScalar, status: 'baseline', description: 'baseline' },
    ...its.map((i): IterationRecord => ({
      iteration: i.iter,
      candidateId: '',
      score: i.scalar,
      status: statusOf(i),
      description: `iter-${i.iter}`,
      ...(i.errorSignature !== null ? { error: i.errorSignature } : {}),
      ...(i.filesChanged === 0 ? { changedFiles: [] } : {}),
      gates: { all_green: i.allGreen },
    })),
  ];
  const counts: StatusCounts = { kept: 0, reverted: 0, rejected: 0, crash: 0, halted: 0 };
  for (const row of history.slice(1)) counts[row.status as keyof StatusCounts] += 1;
  const bestTrail: number[] = [];
  let best = collie.baselineScalar ?? Number.NEGATIVE_INFINITY;
  bestTrail.push(best);
  const improved: boolean[] = [];
  for (const i of its) {
    const up = statusOf(i) === 'kept' && i.scalar! > best; // a reverted iteration's scalar is not the branch's
    if (up) best = i.scalar!;
    improved.push(up);
    bestTrail.push(best);
  }
  const lastError = its.at(-1)?.errorSignature ?? null;
  return {
    iteration: its.at(-1)?.iter ?? 0,
    startedAt,
    now,
    direction: 'maximize',
    baseline: collie.baselineScalar ?? Number.NaN,
    best: Number.isFinite(best) ? best : Number.NaN,
    bestId: '',
    history,
    counts,
    consecutiveNonImprovements: trailing(improved, (up) => !up),
    consecutiveCrashes: trailing(its, (i) => statusOf(i) === 'crash'),
    consecutiveSameError: lastError === null ? 0 : trailing(its, (i) => i.errorSignature === lastError),
    consecutiveNoChange: trailing(its, (i) => i.filesChanged === 0),
    bestTrail,
    cost: { tokens: collie.tokensUsed },
    iterationsThisRun: its.length,
    signal,
    collie,
  };
}
