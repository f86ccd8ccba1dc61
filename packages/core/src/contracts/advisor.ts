import type { LoopState } from './loop-state.js';

/** Kinds of advice an advisor can raise; each becomes an `advice` event. */
export type AdviceKind = 'pause' | 'cooldown' | 'notify';

/** Advice for the next proposal and for the host. */
export interface Advice {
  /** `pause`: stop and review the strategy; `cooldown`: one cool-down round; `notify`: tell the user. */
  readonly kind: AdviceKind;
  /** One line for people and the event. */
  readonly message: string;
  /** Hints passed to the proposer's next call (in `ProposalContext.hints`). */
  readonly hints: readonly string[];
}

/**
 * Looks at the state after each iteration and may give advice: hints for the next proposal and
 * an event for the host (seed 001's circuit breaker is one). Advisors never stop the loop: stop
 * policies do.
 */
export interface Advisor {
  /** Used in logs. */
  readonly name: string;
  /** Returns advice, or an empty list. Pure with respect to the state. */
  readonly advise: (state: LoopState) => readonly Advice[];
}
