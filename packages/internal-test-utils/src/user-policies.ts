import type { Guard, KeepPolicy, StopPolicy } from '@loop/core';

/** Options of {@link userPolicies}. */
export interface UserPoliciesOptions {
  /** The keep policy keeps only a gain of at least this much (score units). @default 2 */
  readonly minGain?: number;
  /** The stop policy stops after this many iterations in a row without a keep. @default 2 */
  readonly patience?: number;
  /** The guard rejects, before the run, a candidate whose description matches. @default /-> 4\b/ */
  readonly banned?: RegExp;
}

/** The three policies of {@link userPolicies} and how often the keep policy was asked. */
export interface UserPolicies {
  readonly keepPolicy: KeepPolicy;
  readonly stop: StopPolicy;
  readonly guard: Guard;
  readonly calls: { decide: number };
}

/**
 * A KeepPolicy, a StopPolicy and a Guard written the way a user would: plain objects against
 * `@loop/core`'s interfaces, nothing preset-specific. Issue 11's one-engine test hands these same
 * objects to auto-iterate, an autoresearch pass and collie. Keep: a gain of at least `minGain` in
 * the loop's direction (reason `gain <g> vs <min>`); stop: `patience` non-improvements in a row,
 * reason `user-plateau`; guard `user-ban`: `reject` with status `banned` and note `banned by the
 * user` when the description matches `banned`.
 */
export function userPolicies(options: UserPoliciesOptions = {}): UserPolicies {
  const minGain = options.minGain ?? 2;
  const patience = options.patience ?? 2;
  const banned = options.banned ?? /-> 4\b/;
  const calls = { decide: 0 };
  return {
    calls,
    keepPolicy: {
      name: 'user-min-gain',
      decide: ({ candidate, incumbent, direction }) => {
        calls.decide += 1;
        const gain = direction === 'minimize' ? incumbent - candidate : candidate - incumbent;
        return { keep: gain >= minGain, reason: `gain ${gain} vs ${minGain}` };
      },
    },
    stop: {
      name: 'user-plateau',
      check: (s) =>
        s.consecutiveNonImprovements >= patience
          ? { reason: 'user-plateau', message: `${patience} iterations without a keep` }
          : undefined,
    },
    guard: {
      name: 'user-ban',
      beforeRun: ({ description }) =>
        banned.test(description) ? { action: 'reject', status: 'banned', note: 'banned by the user' } : undefined,
    },
  };
}
