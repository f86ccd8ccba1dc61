import type { CandidateData, IterationRecord } from './iteration-record.js';
import type { Direction, MaybePromise } from './types.js';
import { improvement } from './scorer.js';
import type { SampleSummary } from '../stats/statistics.js';

/**
 * The statistical evidence behind a keep decision (noise-aware policies). Carried in the
 * `kept` / `reverted` events and written to the decisions JSONL file. All scores are in the
 * scorer's units; `difference` and `interval` are improvements (positive = candidate better,
 * whatever the direction).
 */
export interface KeepEvidence {
  /** The test used: `welch`, `bootstrap`, `wilcoxon` (paired), or `exact` (no noise: all samples equal). */
  readonly test: 'welch' | 'bootstrap' | 'wilcoxon' | 'exact';
  /** The configured confidence, in (0, 1). */
  readonly confidence: number;
  /** The candidate's samples: n, mean, sd, MAD. */
  readonly candidate: SampleSummary;
  /** The incumbent's samples: n, mean, sd, MAD. */
  readonly incumbent: SampleSummary;
  /** Mean improvement of the candidate over the incumbent (positive = better). */
  readonly difference: number;
  /** Two-sided confidence interval of the improvement at `confidence` (welch, bootstrap). */
  readonly interval?: readonly [number, number];
  /** One-sided p-value of "the candidate is not better". */
  readonly p?: number;
  /** The test statistic: t (welch) or z (wilcoxon). */
  readonly statistic?: number;
  /** Welch–Satterthwaite degrees of freedom (welch). */
  readonly df?: number;
  /** Paired mode: instances compared (non-zero differences). */
  readonly pairs?: number;
  /** True when sampling stopped before `maxSamples` because the verdict was already clear. */
  readonly stoppedEarly: boolean;
}

/** The keep decision for one candidate, with its reason (recorded in events). */
export interface KeepDecision {
  /** True to keep the candidate. */
  readonly keep: boolean;
  /** Why, for logs. */
  readonly reason: string;
  /** The statistics behind the decision, when the policy computed any (noise-aware policies). */
  readonly evidence?: KeepEvidence;
  /**
   * The row's label (the preset's own status name) when this decision sets one, e.g. seed 002's `reverted-redtest`.
   * @default none
   */
  readonly status?: string;
  /** Facts for the candidate's record (a preset's verdict details). @default none */
  readonly data?: CandidateData;
  /**
   * A note for the candidate's row (what blocked or qualified the decision, e.g. a constraint it
   * broke): the engine sets the row's `note` and appends ` (<note>)` to its description. @default none
   */
  readonly note?: string;
}

/**
 * What a keep policy decides on. The engine always provides every field; the sample fields are
 * optional only so that policies can be unit-tested with `{ candidate, incumbent, direction }`.
 */
export interface KeepInput {
  /** The candidate's score (its first sample). */
  readonly candidate: number;
  /** The incumbent's (best kept) score: the mean of its samples. */
  readonly incumbent: number;
  /** Which way scores improve. */
  readonly direction: Direction;
  /**
   * The candidate's samples so far, first evaluation first. A live view: the engine appends to it
   * each time {@link KeepInput.sample} resolves with a score.
   */
  readonly candidateSamples?: readonly number[];
  /** The incumbent's samples: the baseline's repeats, then each kept candidate's samples. */
  readonly incumbentSamples?: readonly number[];
  /**
   * Per-instance scores (the scorer's `dimensions`) of each candidate sample, parallel to
   * `candidateSamples` (`undefined` where the run had none). A live view like `candidateSamples`.
   */
  readonly candidateDimensions?: readonly (Readonly<Record<string, number>> | undefined)[];
  /** Per-instance scores of each incumbent sample, parallel to `incumbentSamples`. */
  readonly incumbentDimensions?: readonly (Readonly<Record<string, number>> | undefined)[];
  /**
   * Re-runs the harness and scorer on the current candidate (the next repeat, with the seed the
   * loop's `seedForRepeat` gives it) and resolves with the score, or `undefined` when that repeat
   * crashed or the loop was aborted. Absent outside the engine.
   */
  readonly sample?: () => Promise<number | undefined>;
  /** True when the loop detected that the proposal only changed a random seed. */
  readonly seedOnly?: boolean;
  /** The candidate's Tier-1 gates, one record per sample (see `ScoreOk.gates`). @default none */
  readonly candidateGates?: readonly (Readonly<Record<string, boolean>> | undefined)[];
  /** The incumbent's Tier-1 gates, when known. @default none */
  readonly incumbentGates?: Readonly<Record<string, boolean>>;
  /**
   * The candidate's record so far (what its proposal, run and first score added: `metrics`,
   * `reports`, `params`, `cost`, preset keys). @default none
   */
  readonly candidateData?: CandidateData;
  /**
   * The named metrics (`ScoreOk.data.metrics`) of each candidate sample, parallel to
   * `candidateSamples` (`undefined` where a run had none). A live view like `candidateSamples`.
   */
  readonly candidateMetrics?: readonly (Readonly<Record<string, number>> | undefined)[];
  /** The incumbent's record (its row's `data`: the last kept row, else the baseline's). @default none */
  readonly incumbentData?: CandidateData;
  /** The baseline's record (row 0's `data`), for bounds relative to the baseline. @default none */
  readonly baselineData?: CandidateData;
  /**
   * Every row written before this candidate's, baseline first (what a policy that looks at the
   * whole run needs: a Pareto keep policy's front). Rebuilt from the results log on a resume. @default none
   */
  readonly history?: readonly IterationRecord[];
}

/** Decides whether a scored candidate replaces the incumbent. */
export interface KeepPolicy {
  /** Used in logs. */
  readonly name: string;
  /**
   * Returns the decision. Called once per evaluated candidate, after its first successful run; it
   * may call `input.sample()` to get more samples before deciding.
   */
  readonly decide: (input: KeepInput) => MaybePromise<KeepDecision>;
}

/**
 * Keeps only a strict improvement in the configured direction; an equal score reverts
 * (seed 001: "不变/下降 → git reset"; seed 002: strict improvement). The default.
 */
export function strictImprovement(): KeepPolicy {
  return minDelta(0);
}

/**
 * Keeps only an improvement greater than `delta` (in score units). `minDelta(0)` is strict improvement.
 */
export function minDelta(delta: number): KeepPolicy {
  return {
    name: delta === 0 ? 'strict-improvement' : `min-delta(${delta})`,
    decide: ({ candidate, incumbent, direction }) => {
      const gain = improvement(candidate, incumbent, direction);
      if (gain > delta) return { keep: true, reason: `improved by ${formatGain(gain)}` };
      if (gain === 0) return { keep: false, reason: 'equal score (equal reverts)' };
      return {
        keep: false,
        reason: gain > 0 ? `gain ${formatGain(gain)} not above ${delta}` : `worse by ${formatGain(-gain)}`,
      };
    },
  };
}

function formatGain(x: number): string {
  return Number(x.toPrecision(6)).toString();
}
