import { loopConfigSchema, type LoopConfig } from '@loop/cli';

/** What {@link demoLoopConfig} needs: the demo's settings for one run (new or resumed). */
export interface DemoRunSettings {
  /** The run tag (branch `auto-iterate/<tag>`). */
  readonly tag: string;
  /** Iterations after the baseline; 0 = until interrupted. */
  readonly iterations: number;
  /** Training steps per run (`LOOP_STEP_BUDGET`); 0 = wall-clock budget of `budgetS`. */
  readonly steps: number;
  /**
   * Training seconds with `steps: 0`; with steps only the wall-clock kill (40 x budgetS + 60 s: a guard against hangs,
   * not a budget).
   */
  readonly budgetS: number;
  /** Seed of the built-in proposer. */
  readonly seed: number;
  /** The built-in proposer. */
  readonly proposer: 'tpe' | 'mutator';
  /** An agent CLI instead of the built-in proposer (prompt on stdin, unconfined as before). */
  readonly agent?: string;
  /** The parameter space of search-space.json. */
  readonly space: Record<string, unknown>;
  /** strict or noise-aware (with `repeats` as maxSamples). */
  readonly keep: 'strict' | 'noise-aware';
  /** noise-aware: the most runs of one candidate. */
  readonly repeats: number;
  /** Candidates per batch (K working copies); 1 = one candidate at a time, in place. */
  readonly parallel: number;
  /** A Redis URL: candidates are evaluated by `loop worker` processes on it (docs/many-machines.md). */
  readonly workers?: string;
  /** With `workers`: the BullMQ queue name (the workers' `--queue`). @default 'loop-candidates' */
  readonly queue?: string;
  /**
   * Stop doomed trainings early (issue 27; needs `steps`): train.mjs reports val_bpc on a slice of
   * the validation set every `steps / 10` steps and the loop prunes a run worse than the incumbent's
   * curve at the same step (margin and warm-up in {@link pruneConfigOf}). @default true
   */
  readonly prune?: boolean;
  /**
   * How the `parallel` candidates are scheduled: `async` starts the next training as soon as one
   * ends (both cores busy while a slow or pruned one runs), `batch` waits for the batch's slowest
   * (rows then do not depend on timing: two runs with one seed give the same rows). @default 'async'
   */
  readonly schedule?: 'batch' | 'async';
  /** A blocking constraint `params <= maxParams` on the model's parameter count (issue 28). @default none */
  readonly maxParams?: number;
  /**
   * The tpe proposer ranks candidates by expected improvement per predicted training second
   * (`costMetric: training_seconds`): of two equally promising configs the cheaper trains first. @default false
   */
  readonly costAware?: boolean;
  /** The sealed holdout: the test split's folder (`writeTestSplit`) and its state folder. @default none */
  readonly holdout?: { readonly dir: string; readonly stateDir: string };
}

/**
 * A schedule flag's value (`--schedule` of the demo, `--b-schedule` of the pruning bench).
 * @throws TypeError naming the flag when it is neither `batch` nor `async`.
 */
export function parseSchedule(text: string | undefined, flag = '--schedule'): 'batch' | 'async' {
  if (text !== 'batch' && text !== 'async') throw new TypeError(`${flag} must be batch or async, got "${text}"`);
  return text;
}

/** Every how many steps train.mjs reports a slice val_bpc (`LOOP_REPORT_EVERY`): a tenth of the run, in hundreds. */
export function reportEveryOf(steps: number): number {
  return Math.max(100, Math.round(steps / 10 / 100) * 100);
}

/**
 * The demo's incumbent-curve pruner: a 3% margin (share of the incumbent's value at the step). 2%,
 * calibrated at 1,500 steps, stopped 2 of 29 keeps at the demo's 3,000 (seeds 1-8; docs/pruning.md).
 */
export const PRUNE_MARGIN = 0.03;
/** The demo's pruning warm-up: 10% of the steps. */
export const PRUNE_WARMUP_SHARE = 0.1;

/**
 * The demo's `intermediate` and `prune` blocks for a run of `steps` steps: the slice val_bpc
 * reports, then the non-finite pruner and the incumbent-curve pruner with a 3% margin after a
 * warm-up of 10% of the steps, calibrated at 3,000 steps with bench/prune-calibration.ts (the
 * figures are in docs/pruning.md).
 */
export function pruneConfigOf(steps: number, prune: boolean): Record<string, unknown> {
  if (steps <= 0) return {};
  return {
    // The log is read every 50 ms: a doomed run is stopped within ~50 ms of its report (200 ms by default).
    intermediate: { pattern: '^report step (\\d+) val_bpc ([\\w.+-]+)$', pollMs: 50 },
    prune: {
      enabled: prune,
      steps,
      pruners: [
        { type: 'non-finite' },
        { type: 'incumbent', margin: PRUNE_MARGIN, warmupSteps: Math.round(steps * PRUNE_WARMUP_SHARE) },
      ],
    },
  };
}

/** The goal an agent proposer is given. */
export const AGENT_GOAL =
  'Lower the validation bits per character (val_bpc) of the ' +
  'character-level language model trained by train.mjs, by editing the ' +
  'hyperparameters in config.json (search-space.json lists sensible ' +
  'ranges). One change per iteration.';

/** The wall-clock kill of one training run in seconds: with a step budget only a guard against hangs. */
export function killTimeoutOf(steps: number, budgetS: number): number {
  return steps > 0 ? budgetS * 40 + 60 : budgetS * 2 + 60;
}

/**
 * The demo as a `loop run` config (the CLI's `LoopConfig`, validated by its schema), so the demo
 * runs through `@loop/cli`'s `prepareRun`, the same path as `loop run`: the same proposers, keep
 * rules and `parallel: { candidates, link, workers: { redis } }` wiring (local working copies, or
 * the BullMQ queue with remote working copies and a remote harness). config.json is the mutable
 * artifact; prepare.mjs, train.mjs and search-space.json are read-only; `node_modules` (a
 * git-ignored symlink) is fingerprinted and linked into each working copy.
 *
 * @throws {ZodError} when a value is out of the schema's range (e.g. parallel above 256).
 */
export function demoLoopConfig(s: DemoRunSettings): LoopConfig {
  const proposer = s.agent
    ? { type: 'agent', command: s.agent, goal: AGENT_GOAL, timeoutS: 15 * 60, sandbox: 'none' }
    : {
        type: s.proposer,
        file: 'config.json',
        space: s.space,
        seed: s.seed,
        ...(s.costAware && s.proposer === 'tpe' ? { costMetric: 'training_seconds' } : {}),
      };
  const keep =
    s.keep === 'noise-aware'
      ? {
          policy: 'noise-aware',
          maxSamples: s.repeats,
          minSamples: Math.min(4, s.repeats),
          baselineRepeats: Math.min(5, s.repeats),
        }
      : undefined;
  return loopConfigSchema.parse({
    tag: s.tag,
    targetFiles: ['config.json'],
    readOnlyFiles: ['prepare.mjs', 'train.mjs', 'search-space.json'],
    fingerprintPaths: ['node_modules'], // git-excluded: a replaced link (a score shim) is HARNESS_TAMPERED
    runCommand: 'node train.mjs',
    metricName: 'val_bpc',
    direction: 'lower',
    timeBudgetS: s.budgetS,
    killTimeoutS: killTimeoutOf(s.steps, s.budgetS),
    ...(s.steps > 0
      ? { env: { LOOP_STEP_BUDGET: String(s.steps), LOOP_REPORT_EVERY: String(reportEveryOf(s.steps)) } }
      : {}),
    ...pruneConfigOf(s.steps, s.prune ?? true),
    maxIterations: s.iterations,
    // Issue 28: the parameter count and the training time are recorded as metrics of every row.
    metrics: ['params', 'training_seconds'],
    ...(s.maxParams !== undefined ? { constraints: [`params <= ${s.maxParams}`] } : {}),
    proposer,
    ...(keep ? { keep } : {}),
    // The test split as a sealed holdout, scored on the best state when the run stops. The demo's
    // agent runs unconfined (sandbox: none), so with --agent the holdout is NOT sealed (the banner says so).
    ...(s.holdout
      ? {
          holdout: {
            command: `LOOP_EVAL_NAMES=${s.holdout.dir}/test-names.txt node train.mjs`,
            metricName: 'test_bpc',
            files: [s.holdout.dir],
            stateDir: s.holdout.stateDir,
            sealed: !s.agent,
          },
        }
      : {}),
    ...(s.parallel > 1 || s.workers
      ? {
          parallel: {
            candidates: s.parallel,
            schedule: s.schedule ?? 'async',
            link: ['node_modules'],
            ...(s.workers ? { workers: { redis: s.workers, ...(s.queue ? { queue: s.queue } : {}) } } : {}),
          },
        }
      : {}),
  });
}
