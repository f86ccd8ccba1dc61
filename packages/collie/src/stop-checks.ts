import type { IterationRecord, LoopState, StopDecision, StopPolicy } from '@loop/core';

/** The terminal statuses of state.json (seed 000 §3.5). */
export type TerminalStatus = 'converged' | 'budget_exhausted' | 'escalated';

/** One finished iteration as the stop checks see it. */
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
}

/**
 * The loop state the SC policies read: core's {@link LoopState} plus collie's facts. A core
 * policy reads it as a plain LoopState; the SC policies read `collie` too and never stop a state
 * without it.
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
    readonly successCriterion: { readonly type: 'all_green' | 'scalar_threshold' | 'convergence_delta' | 'custom'; readonly threshold: number | null };
    /** How SC3 picks ε: `ordinal` (integer 1-5 scalars, ε = 0) or `continuous` (ε = 0.01 × |baseline|). @default detected */
    readonly scalarKind?: 'ordinal' | 'continuous';
  };
}

function facts(s: LoopState): CollieStopState['collie'] | undefined {
  return 'collie' in s ? (s as CollieStopState).collie : undefined;
}

/** Builds a {@link CollieStopState} from collie's facts (history rows are the iterations' scalars). */
export function collieStopState(collie: CollieStopState['collie'], startedAt: number, now: number, signal: AbortSignal = new AbortController().signal): CollieStopState {
  const history: IterationRecord[] = [
    { iteration: 0, candidateId: '', score: collie.baselineScalar, status: 'baseline', description: 'baseline' },
    ...collie.iterations.map((i): IterationRecord => ({ iteration: i.iter, candidateId: '', score: i.scalar, status: i.scalar === null ? 'crash' : 'kept', description: `iter-${i.iter}` })),
  ];
  const scores = collie.iterations.map((i) => i.scalar).filter((v): v is number => v !== null);
  const last = collie.iterations.at(-1);
  return {
    iteration: last?.iter ?? 0,
    startedAt,
    now,
    direction: 'maximize',
    baseline: collie.baselineScalar ?? Number.NaN,
    best: scores.length > 0 ? Math.max(...scores) : (collie.baselineScalar ?? Number.NaN),
    bestId: '',
    history,
    counts: { kept: scores.length, reverted: 0, rejected: 0, crash: collie.iterations.length - scores.length, halted: 0 },
    consecutiveNonImprovements: 0,
    consecutiveCrashes: 0,
    iterationsThisRun: collie.iterations.length,
    signal,
    collie,
  };
}

const stop = (reason: string, message: string): StopDecision => ({ reason, message });

/** SC1 (seed 000 Stage 6): iter ≥ max_iterations → budget_exhausted. */
export function sc1IterationCap(): StopPolicy {
  return {
    name: 'SC1',
    check: (s) => {
      const c = facts(s);
      if (!c) return undefined;
      return s.iteration >= c.maxIterations ? stop('SC1', `iteration cap reached (${s.iteration} >= ${c.maxIterations})`) : undefined;
    },
  };
}

/** SC2: all_green reached (criterion all_green) OR scalar ≥ threshold (criterion scalar_threshold) → converged. */
export function sc2Threshold(): StopPolicy {
  return {
    name: 'SC2',
    check: (s) => {
      const c = facts(s);
      const last = c?.iterations.at(-1);
      if (!c || !last) return undefined;
      if (c.successCriterion.type === 'all_green' && last.allGreen) return stop('SC2', 'all green');
      const t = c.successCriterion.threshold;
      if (c.successCriterion.type === 'scalar_threshold' && t !== null && last.scalar !== null && last.scalar >= t) return stop('SC2', `scalar ${last.scalar} >= threshold ${t}`);
      return undefined;
    },
  };
}

/** The SC3 ε: 0 for integer 1-5 scalars, 0.01 × |baseline| for continuous ones. */
export function convergenceEpsilon(c: CollieStopState['collie']): number {
  const values = [c.baselineScalar, ...c.iterations.map((i) => i.scalar)].filter((v): v is number => v !== null);
  const kind = c.scalarKind ?? (values.length > 0 && values.every((v) => Number.isInteger(v) && v >= 1 && v <= 5) ? 'ordinal' : 'continuous');
  return kind === 'ordinal' ? 0 : 0.01 * Math.abs(c.baselineScalar ?? 0);
}

/** SC3: the last two iterations both have |scalar_delta| ≤ ε → converged. */
export function sc3Convergence(): StopPolicy {
  return {
    name: 'SC3',
    check: (s) => {
      const c = facts(s);
      if (!c || c.iterations.length < 2) return undefined;
      const eps = convergenceEpsilon(c);
      const lastTwo = c.iterations.slice(-2);
      return lastTwo.every((i) => i.delta !== null && Math.abs(i.delta) <= eps) ? stop('SC3', `converged: last two |delta| <= ${eps}`) : undefined;
    },
  };
}

/** SC4: tokens_used ≥ max_tokens OR elapsed ≥ max_wallclock_min (`unlimited` never fires) → budget_exhausted. */
export function sc4Budget(): StopPolicy {
  return {
    name: 'SC4',
    check: (s) => {
      const c = facts(s);
      if (!c) return undefined;
      if (c.maxTokens !== null && c.tokensUsed >= c.maxTokens) return stop('SC4', `token budget used (${c.tokensUsed} >= ${c.maxTokens})`);
      if (c.maxWallclockMin !== null && s.now - s.startedAt >= c.maxWallclockMin * 60_000) return stop('SC4', `wall-clock budget of ${c.maxWallclockMin} min used`);
      return undefined;
    },
  };
}

/** SC5 (stop-steps-counter): the same error three iterations in a row, or no file changes five in a row → escalated. */
export function sc5StuckSteps(): StopPolicy {
  return {
    name: 'SC5',
    check: (s) => {
      const c = facts(s);
      if (!c) return undefined;
      const last3 = c.iterations.slice(-3);
      const sig = last3[0]?.errorSignature;
      if (last3.length === 3 && sig && last3.every((i) => i.errorSignature === sig)) return stop('SC5', `same error three times: ${sig}`);
      const last5 = c.iterations.slice(-5);
      if (last5.length === 5 && last5.every((i) => i.filesChanged === 0)) return stop('SC5', 'no file changes five times');
      return undefined;
    },
  };
}

/** The terminal status each SC maps to (seed 000 Stage 6). */
export const STOP_CHECK_STATUS: Readonly<Record<string, TerminalStatus>> = { SC1: 'budget_exhausted', SC2: 'converged', SC3: 'converged', SC4: 'budget_exhausted', SC5: 'escalated' };

/**
 * SC1-SC5 as one list (hybrid OR). Order: SC2, SC3, SC5, SC4, SC1, so a run that reaches its
 * threshold on its last allowed iteration is `converged`, not `budget_exhausted` (the seed does not
 * say which wins; this is our choice).
 */
export function stopChecks(): StopPolicy[] {
  return [sc2Threshold(), sc3Convergence(), sc5StuckSteps(), sc4Budget(), sc1IterationCap()];
}

/** Runs the checks in order; the first decision wins, mapped to its terminal status. */
export function evaluateStopChecks(state: CollieStopState, policies: readonly StopPolicy[] = stopChecks()): { decision: StopDecision; status: TerminalStatus } | undefined {
  for (const p of policies) {
    const decision = p.check(state);
    if (decision) return { decision, status: STOP_CHECK_STATUS[decision.reason] ?? 'escalated' };
  }
  return undefined;
}
