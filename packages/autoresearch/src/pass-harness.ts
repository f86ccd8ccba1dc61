import type { MaybePromise } from '@loop/core';

/** Tier-1 gate results (function mode): hard gates that zero the composite when red. */
export interface Tier1Gates {
  /** True when the test command exited 0 ({{TEST_COMMAND}} green). */
  readonly testsGreen: boolean;
  /** Line coverage in percent (0-100), when measured. */
  readonly coveragePct?: number;
  /** True when coverage is at least {{MIN_COVERAGE}} (or no minimum applies). */
  readonly coverageOk: boolean;
}

/** The official score of one evaluation. */
export interface PassScore {
  /** The pass's composite, 0-10 (AR-3 has none: its decision uses the dimensions). */
  readonly composite: number;
  /** Scores keyed by the pass's exact dimension ids. */
  readonly dimensions: Readonly<Record<string, number>>;
  /** Function mode: the Tier-1 gates. */
  readonly gates?: Tier1Gates;
}

/** What the runner tells the harness. */
export interface ScoreContext {
  /** The iteration scored (0 = baseline). */
  readonly iteration: number;
  /** Aborted on a human interrupt. */
  readonly signal: AbortSignal;
  /**
   * True when re-scoring the restored best on resume (function mode: re-measures the Tier-1 gates); not an iteration.
   */
  readonly resumeCheck?: boolean;
}

/**
 * A pass's fixed harness (seed 002 loop step 5): produces the composite and the per-dimension scores
 * for the on-disk source. Throwing means the harness errored: the iteration is a `crash`.
 */
export interface PassHarness {
  /** Used in errors and logs. */
  readonly name: string;
  /** The exact dimension ids it returns (the results.tsv columns). */
  readonly dimensions: readonly string[];
  /** Scores the current source. */
  readonly score: (context: ScoreContext) => MaybePromise<PassScore>;
}

/** Something that returns per-dimension scores (a reflection agent). */
export interface DimensionScorer {
  /** Used in errors and logs. */
  readonly name: string;
  /** Returns a score for every requested dimension id. */
  readonly score: (context: ScoreContext) => MaybePromise<Readonly<Record<string, number>>>;
}

/** Something that runs the Tier-1 gates (test command plus coverage). */
export interface GateRunner {
  /** Used in errors and logs. */
  readonly name: string;
  /** Runs the tests; `passRate` is a fraction 0-1. */
  readonly run: (context: ScoreContext) => MaybePromise<{ gates: Tier1Gates; passRate: number }>;
}

/** The mean of `values`, the default AR-1 composite. */
export function meanComposite(values: Readonly<Record<string, number>>, ids: readonly string[]): number {
  return ids.reduce((sum, id) => sum + (values[id] ?? 0), 0) / ids.length;
}

/**
 * AR-1 design harness: the reflection agent only; composite = `composite(dimensions)`
 * (default: the mean of the four AR-1 dimensions).
 */
export function createDesignPassHarness(options: {
  reflection: DimensionScorer;
  dimensions?: readonly string[];
  composite?: (dimensions: Readonly<Record<string, number>>) => number;
}): PassHarness {
  const ids = options.dimensions ?? [
    'structural_health',
    'loudness_of_failures',
    'naming_clarity',
    'docs_traceability',
  ];
  return {
    name: `design(${options.reflection.name})`,
    dimensions: ids,
    score: async (context) => {
      const d = await options.reflection.score(context);
      return {
        composite: options.composite ? options.composite(d) : meanComposite(d, ids),
        dimensions: pickDimensions(d, ids),
      };
    },
  };
}

/**
 * AR-2 function harness: Tier-1 gates (tests green, coverage ≥ minimum) × reflection quality.
 * Composite = `quality` when every gate is green, else 0 (the hard gate zeroes it). Dimensions:
 * `quality` (0-10), `pass_rate` (0-1), `coverage` (percent, -1 when not measured).
 */
export function createFunctionPassHarness(options: { reflection: DimensionScorer; gates: GateRunner }): PassHarness {
  return {
    name: `function(${options.gates.name} x ${options.reflection.name})`,
    dimensions: ['quality', 'pass_rate', 'coverage'],
    score: async (context) => {
      const { gates, passRate } = await options.gates.run(context);
      const { quality } = pickDimensions(await options.reflection.score(context), ['quality']);
      const green = gates.testsGreen && gates.coverageOk;
      return {
        composite: green ? quality! : 0,
        dimensions: { quality: quality!, pass_rate: passRate, coverage: gates.coveragePct ?? -1 },
        gates,
      };
    },
  };
}

function pickDimensions(values: Readonly<Record<string, number>>, ids: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const id of ids) {
    const v = values[id];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`dimension ${id} missing or not a finite number`);
    out[id] = v;
  }
  return out;
}

/**
 * The AR-2 function harness under its old name.
 *
 * @deprecated Renamed {@link createFunctionPassHarness} (core's `createFunctionHarness` is a different
 *   thing); this alias goes in the next version.
 */
export const createFunctionHarness = createFunctionPassHarness;
