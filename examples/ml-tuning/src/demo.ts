import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { dateTag, formatIterationLine, formatSummary } from '@loop/auto-iterate';
import { lockPath, prepareRun } from '@loop/cli';
import { LoopError, systemClock, type LoopSummary } from '@loop/core';
import { isLocked, writeJsonAtomic } from '@loop/core/files';
import { createProgress } from './progress.js';
import { demoLoopConfig, killTimeoutOf, PRUNE_MARGIN, PRUNE_WARMUP_SHARE } from './run-config.js';
import { createWorkspace, EXAMPLE_DIR } from './workspace.js';
import { holdoutDirOf, testLine, writeTestSplit } from './holdout.js';

/** Options of {@link runDemo} (the CLI flags). */
export interface DemoOptions {
  /**
   * Iterations (candidates) after the baseline, rounded up to a whole number of batches of `parallel`; 0 runs until
   * interrupted. @default 12
   */
  iterations?: number;
  /**
   * Training steps per run (train.mjs's LOOP_STEP_BUDGET): the score of a config no longer depends
   * on how loaded the machine is, so a keep cannot be an artefact of load (issue 17). 0 trains for
   * `budgetS` seconds of wall clock instead. On resume, the run's own value. @default 3000
   */
  steps?: number;
  /**
   * With `steps: 0`, the training time per run in seconds; with steps, it only sets the wall-clock
   * kill (`40 x budgetS + 60` s; a run past it is a crash). On resume, the run's own budget. @default 20
   */
  budgetS?: number;
  /** Seed of the proposer; on resume, the run's own seed. @default 1 */
  seed?: number;
  /**
   * The built-in proposer: `tpe` (model-based, several parameters per proposal, rebuilt from
   * results.tsv on resume) or `mutator` (one parameter per iteration at random). @default 'tpe'
   */
  proposer?: 'tpe' | 'mutator';
  /** The workspace directory. @default examples/ml-tuning/.runs/<tag> */
  out?: string;
  /** An agent CLI to use instead of the built-in proposer (prompt on stdin). */
  agent?: string;
  /** Continue the run in `out`. @default false */
  resume: boolean;
  /**
   * The keep rule: `strict` keeps any lower val_bpc (equal reverts); `noise-aware` re-runs the
   * candidate (up to `repeats` runs) and keeps it only when its gain clears the run-to-run noise
   * at 95% confidence (Welch's t). @default 'strict'
   */
  keep?: 'strict' | 'noise-aware';
  /** With `keep: 'noise-aware'`: the most runs of one candidate (its maxSamples). @default 10 */
  repeats?: number;
  /**
   * Candidates per batch, K (issue 15): each proposed into its own working copy and trained at
   * once, the best kept, the others saved under `refs/loop/discarded/<n>`; 1 = one at a time in
   * place. Training is single-threaded, so K = 2 uses both cores of a 2-core machine (issue 17).
   * On resume, the run's own K unless given. @default 2
   */
  parallel?: number;
  /**
   * A Redis URL (`redis://host:port`): the K candidates (and the baseline) are evaluated by
   * `loop worker --redis URL --link node_modules=<this example's node_modules>` processes instead of
   * locally, through the same wiring as `loop run`'s `parallel.workers` (docs/many-machines.md).
   */
  workers?: string;
  /** With `workers`: the BullMQ queue, as the workers' `--queue`. @default 'loop-candidates' */
  queue?: string;
  /** Stop doomed trainings early (issue 27; with a step budget): `--no-prune` sets false. @default true */
  prune?: boolean;
  /**
   * `async` (a freed core starts the next training at once) or `batch` (rows independent of timing). @default 'async'
   */
  schedule?: 'batch' | 'async';
  /**
   * A blocking constraint on the model's parameter count: a candidate with more than this many is never kept. On
   * resume, the run's own. @default none
   */
  maxParams?: number;
  /** The tpe proposer ranks candidates by expected improvement per predicted training second. @default false */
  costAware?: boolean;
  /** Aborting stops after restoring the last kept commit. */
  signal?: AbortSignal;
  /** Where lines go. @default console.log */
  print?: (line: string) => void;
}

/**
 * Candidates per batch by default: training is single-threaded, K = 2 uses both cores of the 2-core machine the demo is
 * measured on (issue 17).
 */
export const DEFAULT_PARALLEL = 2;

/** The run's tag: the date (seed 003) plus the time, so several runs a day get their own branch. */
function runTag(now: number): string {
  const d = new Date(now);
  const hhmmss = d.toISOString().slice(11, 19).replaceAll(':', '');
  return `${dateTag(now)}-${hhmmss}`;
}

/**
 * The overnight ML tuning demo: a makemore-style character-level MLP on English first names
 * (@stdlib data sets), tuned by the auto-iterate preset. The mutable artifact is config.json;
 * prepare.mjs (data split, evaluation) and train.mjs are read-only; the metric is validation
 * bits per character (`val_bpc`, lower is better). By default two candidates per batch are
 * trained at once (`parallel`), or on `loop worker` processes with `workers`; the run is built by
 * `@loop/cli`'s `prepareRun` from {@link demoLoopConfig}, the same path as `loop run`.
 *
 * @throws Error when `out` is not empty (new run) or holds no demo run (resume), or a resumed
 *   run's budget, seed or steps differ; `LoopError` `LOCK_HELD` when a run is going on in `out` (a
 *   resume: nothing written or printed), and the codes of `createAutoIterate`'s `run()`.
 */
export async function runDemo(options: DemoOptions): Promise<{ summary: LoopSummary; dir: string; branch: string }> {
  const print =
    options.print ??
    ((line: string) => {
      if (!process.stdout.destroyed) console.log(line);
    });
  const now = systemClock.now();
  let dir = options.out;
  let tag: string;
  let budgetS = options.budgetS ?? 20;
  let seed = options.seed ?? 1;
  let iterations = options.iterations ?? 12;
  let steps = options.steps ?? 3000;
  let parallel = options.parallel ?? DEFAULT_PARALLEL;
  let maxParams = options.maxParams;
  let costAware = options.costAware === true;
  if (costAware && (options.agent || (options.proposer ?? 'tpe') !== 'tpe'))
    throw new Error('[loop] [ml-tuning] --cost-aware needs the tpe proposer (not --proposer mutator or --agent)');
  if (options.resume) {
    if (!dir) throw new Error('[loop] [ml-tuning] --resume needs --out <dir> of the run to continue');
    const state = JSON.parse(await readFile(join(dir, '.loop', 'demo.json'), 'utf8').catch(() => '{}')) as {
      tag?: string;
      budgetS?: number;
      seed?: number;
      iterations?: number;
      steps?: number;
      parallel?: number;
      maxParams?: number;
      costAware?: boolean;
    };
    if (!state.tag || state.budgetS === undefined || state.seed === undefined)
      throw new Error(
        `[loop] [ml-tuning] ${dir} holds no demo run to resume (missing ` +
          `.loop/demo.json); start a new run with another --out`,
      );
    // A resumed run must measure like the run it continues: same budget, same proposer seed.
    // A run from before step budgets trained on wall clock (steps 0).
    for (const [flag, given, stored] of [
      ['--budget-s', options.budgetS, state.budgetS],
      ['--seed', options.seed, state.seed],
      ['--steps', options.steps, state.steps ?? 0],
    ] as const) {
      if (given !== undefined && given !== stored)
        throw new Error(
          `[loop] [ml-tuning] ${flag} ${given} differs from the run's ${stored}; ` +
            `scores would not be comparable. Resume without ${flag} (or ` +
            `with ${stored})`,
        );
    }
    // A run going on in `dir` (another demo or `loop run`) refuses this one before anything is written
    // or printed: its loop config in .loop/ stays the running one's.
    const lock = lockPath(dir);
    if (await isLocked(lock))
      throw new LoopError(
        'LOCK_HELD',
        `[loop] [ml-tuning] a run is going on in ${dir} (lock ${lock}); wait for it to stop, ` +
          `then resume: nothing was written`,
        { details: { path: lock } },
      );
    tag = state.tag;
    budgetS = state.budgetS;
    seed = state.seed;
    steps = state.steps ?? 0;
    iterations = options.iterations ?? state.iterations ?? iterations;
    parallel = options.parallel ?? state.parallel ?? 1; // a run from before --parallel ran one at a time
    maxParams ??= state.maxParams;
    costAware ||= state.costAware === true; // the run's own, as its constraint
  } else {
    tag = runTag(now);
    dir ??= join(EXAMPLE_DIR, '.runs', tag);
    await createWorkspace(dir);
    await writeTestSplit(dir); // the test split, outside the workspace: the sealed holdout
    // A batch trains K candidates, so the run ends on a whole batch: round up, so "iteration N of M" ends at M.
    if (parallel > 1 && iterations > 0) iterations = Math.ceil(iterations / parallel) * parallel;
    await writeJsonAtomic(join(dir, '.loop', 'demo.json'), {
      tag,
      seed,
      budgetS,
      iterations,
      steps,
      parallel,
      ...(maxParams !== undefined ? { maxParams } : {}),
      ...(costAware ? { costAware } : {}),
    });
  }
  await stat(join(dir, 'train.mjs'));
  const space = JSON.parse(await readFile(join(dir, 'search-space.json'), 'utf8')) as Record<string, unknown>;
  const keep = options.keep ?? 'strict';
  // A run from before the holdout has no test split: it resumes without one.
  const holdout = existsSync(holdoutDirOf(dir))
    ? { dir: holdoutDirOf(dir), stateDir: `${holdoutDirOf(dir)}-state` }
    : undefined;
  const config = demoLoopConfig({
    ...(holdout ? { holdout } : {}),
    tag,
    iterations,
    steps,
    budgetS,
    seed,
    proposer: options.proposer ?? 'tpe',
    ...(options.agent ? { agent: options.agent } : {}),
    space,
    keep,
    repeats: options.repeats ?? 10,
    parallel,
    ...(options.workers ? { workers: options.workers } : {}),
    ...(options.queue ? { queue: options.queue } : {}),
    prune: options.prune ?? true,
    schedule: options.schedule ?? 'async',
    ...(maxParams !== undefined ? { maxParams } : {}),
    ...(costAware ? { costAware: true } : {}),
  });
  // The run's loop config, where `loop status` and `loop report` find it (.loop/cli.json names it): the
  // holdout's state folder, outside the workspace, is read from it.
  const configFile = join(dir, '.loop', 'loop.config.json');
  await writeJsonAtomic(configFile, config);
  // The same path as `loop run` (proposer, keep rule, parallel copies or workers): @loop/cli's prepareRun.
  const { run } = prepareRun(
    { config, dir, file: configFile },
    { resume: options.resume, ...(options.signal ? { signal: options.signal } : {}) },
  );
  print(`workspace ${dir}`);
  print(
    `branch    ${run.branch}   (results.tsv at the workspace root, each ` +
      `run's training log in .loop/logs/<iteration>.log)`,
  );
  const each = steps > 0 ? `${steps} training steps (killed after ${killTimeoutOf(steps, budgetS)} s)` : `${budgetS} s`;
  print(
    `metric    val_bpc, lower is better; ${iterations || 'unlimited'} ` +
      `iteration${iterations === 1 ? '' : 's'} of ${each} each; ` +
      `proposer ${options.agent ? 'agent' : (options.proposer ?? 'tpe')}` +
      `${costAware ? ' (per training second)' : ''}; ` +
      `keep ${keep}${maxParams !== undefined ? `; constraint params <= ${maxParams}` : ''}`,
  );
  if (options.workers)
    print(
      `workers   candidates go to the loop worker processes ` +
        `on ${options.workers}, ${parallel} per batch; start each with: loop ` +
        `worker --redis ${options.workers}${options.queue ? ` --queue ${options.queue}` : ''} ` +
        `--link node_modules=${join(EXAMPLE_DIR, 'node_modules')}`,
    );
  else if (parallel > 1 && (options.schedule ?? 'async') === 'async')
    print(
      `parallel  ${parallel} candidates at once, each in its own working copy; ` +
        `a freed core starts the next at once (--schedule async); keeps decided ` +
        `in iteration order`,
    );
  else if (parallel > 1)
    print(`parallel  ${parallel} candidates per batch, each trained in its own working copy at once; the best is kept`);
  if (steps > 0 && (options.prune ?? true))
    print(
      `pruning   a training more than ${PRUNE_MARGIN * 100}% worse than the incumbent's curve past ` +
        `${PRUNE_WARMUP_SHARE * 100}% of its steps is stopped (--no-prune: run each to its end)`,
    );
  else if (steps > 0) print('pruning   off (--no-prune): every training runs to its end');
  const progress = createProgress({
    iterations,
    parallel,
    schedule: options.schedule ?? 'async',
    now: () => systemClock.now(),
  });
  print(options.resume ? 'resuming the run...' : `training the baseline (${each})...`);
  for (const type of ['baseline', 'kept', 'reverted', 'crash', 'advice', 'resumed'] as const) {
    run.loop.on(type, (event) => {
      const line = formatIterationLine(event);
      if (line) print(line);
      const live = progress.update(event);
      if (live) print(live);
    });
  }
  const summary = await run.run();
  print('');
  print(formatSummary(summary, 'val_bpc'));
  if (holdout) print(await testLine(holdout.stateDir, run.branch));
  print(`inspect: cd ${dir} && git log --oneline ${run.branch} && cat results.tsv`);
  if (summary.stop.reason === 'aborted') print(`resume:  npx -y pnpm@12.4.2 demo --resume --out ${dir}`);
  return { summary, dir, branch: run.branch };
}

export { EXAMPLE_DIR };
