import type { KeepPolicy } from '../contracts/keep-policy.js';

/** Options of {@link tier1Gates}. */
export interface Tier1GatesOptions {
  /**
   * The row label of a candidate refused for a red gate (seed 002 function mode: `reverted-redtest`). @default none
   * (the row is plain `reverted`)
   */
  readonly status?: string;
}

/**
 * A keep policy with Tier-1 hard gates (seed 002: "a test going from green to red is an automatic
 * revert regardless of the quality sub-score"): a candidate with any red gate (`ScoreOk.gates`, in
 * any of its samples) is refused, its decision carrying `status` as the row's label and naming the
 * red gates; otherwise `inner` decides. A candidate without gates is decided by `inner` alone.
 *
 * @example
 * createLoop({ ..., keep: { policy: tier1Gates(strictImprovement(), { status: 'reverted-redtest' }) } });
 */
export function tier1Gates(inner: KeepPolicy, options: Tier1GatesOptions = {}): KeepPolicy {
  return {
    name: `tier1(${inner.name})`,
    decide: (input) => {
      const red = new Set<string>();
      for (const gates of input.candidateGates ?? []) {
        for (const [name, green] of Object.entries(gates ?? {})) if (!green) red.add(name);
      }
      if (red.size === 0) return inner.decide(input);
      const names = [...red].sort().join(', ');
      return {
        keep: false,
        reason: `Tier-1 gate red: ${names}`,
        ...(options.status ? { status: options.status } : {}),
      };
    },
  };
}
