import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ConfigError,
  createFileArtifact,
  createLoop,
  createRegexScorer,
  isLoopError,
  systemClock,
  type Loop,
  type LoopSummary,
} from '@loop/core';
import { createSeedOnlyDetector } from '@loop/core/artifacts';
import { acquireLock, withRecordData } from '@loop/core/files';
import { createGitResetRollback, describeRepairs, type GitResetRollback } from '@loop/rollback-git';
import { gitDirOf } from '@loop/rollback-git/git';
import { dateTag, type AutoIterateOptions } from './auto-iterate-options.js';
import { normalizeAutoIterateOptions } from './auto-iterate-schema.js';
import { createCircuitBreaker } from './circuit-breaker.js';
import { coreParallelOptions } from './parallel-options.js';
import { checksGuard, runCommandHarness } from './run-command.js';
import { RUN_FILES } from './run-files.js';
import { autoIterateStopPolicy } from './stop-policies.js';
import { assertHarnessCommitted } from './harness-drift.js';
import { checkConstraintOptions, defaultMetricPattern, metricPatterns, wireConstraints } from './metric-constraints.js';
import { withDimensionsTsv, withLogDimensions } from './dimensions-tsv.js';
import { hostedLoop, type HostedLoop } from './hosted-loop.js';
import { createResultsTsv } from './results-tsv.js';
import { readRunRows } from './results-tail.js';
import { archiveEarlierRun } from './archive-run.js';
import { createWorkspaceArtifact } from './workspace-artifact.js';
import { autoIterateHoldout, type AutoIterateSealedHoldout } from './holdout.js';
import { assertNoEarlierRun, assertRepositoryRoot } from './workspace-checks.js';

/** A configured auto-iterate run. */
export interface AutoIterate {
  /** The run branch, `auto-iterate/<tag>`. */
  readonly branch: string;
  /** Absolute path of results.tsv. */
  readonly resultsPath: string;
  /** The underlying loop: subscribe to its events before calling `run()`. */
  readonly loop: Loop;
  /** The git rollback (its `start()` is called by `run()`). */
  readonly rollback: GitResetRollback;
  /**
   * Takes the workspace lock, creates (or, with `resume`, checks out) the run branch, runs the
   * baseline (unless resuming) and the loop, and leaves the branch at the best kept commit. On a
   * resume that had to repair what a kill left in `.git` (a torn index or branch ref, stale locks,
   * an orphan candidate), prints one line to stderr: `[loop] [auto-iterate] resume repaired: ...`
   * (the list is `rollback.repairs()`).
   *
   * @throws {LoopError} `NOT_A_REPOSITORY`, `LOCK_HELD`, `DIRTY_WORKTREE`, `BRANCH_EXISTS`,
   *   `BASELINE_FAILED`, `RESTORE_FAILED`, `STATE_WRITE_FAILED`, `RESULTS_CORRUPT`, `RESUME_MISMATCH`.
   */
  readonly run: () => Promise<LoopSummary>;
  /**
   * For a host that makes its own edits (an MCP server, an agent framework's tool loop, a script):
   * does what `run()` does before the loop (checks, workspace lock, run branch) and returns the
   * loop to drive with `ask()` / `tell()` (or `step()` with the configured proposer). The baseline
   * (or the resume) happens at the first call; the lock is released when the loop stops (a stop
   * policy after a `tell`, `stop()`, a halt or an error). Kill -9 between `ask` and `tell` is an
   * interrupted candidate: the next `open()` or `run()` with `resume` rescues its edit and goes on.
   *
   * @throws {LoopError} as `run()` before the loop starts; the loop's own as {@link HostedLoop}.
   */
  readonly open: () => Promise<HostedLoop>;
  /**
   * The sealed holdout (issue 33), when `holdout` is set: its final score is taken on stop, its gate is the last guard.
   */
  readonly holdout?: AutoIterateSealedHoldout;
}

/**
 * The auto-iterate preset (seeds 003 and 001, target type `code`): a run branch
 * `auto-iterate/<tag>`, every experiment committed before it runs, a discard or crash reset to
 * the last keep commit (its commit kept under `refs/loop/discarded/<n>`), results.tsv
 * `commit score status description` never tracked, a baseline first (recorded as keep), crash
 * repair up to 2 times, and the circuit breaker (3 crashes: pause; 5 discards: cool-down;
 * 10 discards: notify).
 *
 * @throws {ConfigError} `CONFIG_INVALID` naming the field for invalid options.
 *
 * @example
 * const run = createAutoIterate({
 *   dir,
 *   files: { targetFiles: ['config.json'], readOnlyFiles: ['prepare.mjs'] },
 *   run: { command: 'node train.mjs', timeBudgetS: 60, killTimeoutS: 120 },
 *   score: { metricName: 'val_bpc', direction: 'minimize' },
 *   stop: { maxIterations: 20 },
 *   proposer,
 * });
 * run.loop.on('kept', (e) => console.log(e.record.description));
 * const summary = await run.run();
 */
export function createAutoIterate(options: AutoIterateOptions): AutoIterate {
  const { options: o, pathOf } = normalizeAutoIterateOptions(options);
  const clock = o.clock ?? systemClock;
  const tag = o.tag ?? dateTag(clock.now());
  const branch = `auto-iterate/${tag}`;
  const direction = o.score.direction;
  const pattern = o.score.pattern ?? defaultMetricPattern(o.score.metricName);
  // Issue 28: named metrics and constraints on them; the objective counts as a metric by its name.
  const patterns = metricPatterns(o.score.metrics);
  const checked = checkConstraintOptions(o.keep.constraints, [...Object.keys(patterns), o.score.metricName]);
  if (checked.issues.length > 0) throw new ConfigError('auto-iterate', checked.issues);
  for (const c of checked.constraints) if (!(c.metric in patterns)) patterns[c.metric] = pattern;
  const resultsPath = join(o.dir, o.files.resultsFile);
  const rollback = createGitResetRollback({
    dir: o.dir,
    branch,
    resume: o.recovery.resume,
    allowDirty: o.files.allowDirty,
    clock,
    messagePrefix: 'auto-iterate: ',
    // The engine's inspect-propose-inspect-commit step: the surface check's scan is the commit's,
    // and a revert's clean tree the next inspection's (issue 13). Parallel copies adopt files into
    // the workspace between a checkpoint and the commit, so they scan each time.
    reuseScans: o.parallel === undefined,
    // The OS says what changed: scans stat only that (issue 31). Parallel copies scan each time.
    watch: o.files.watch && o.parallel === undefined,
    ...(o.files.deferStagingAt === undefined ? {} : { deferStagingAt: o.files.deferStagingAt }),
    excludes: [
      o.files.resultsFile,
      o.files.logFile,
      '.loop/',
      'node_modules',
      ...(o.score.dimensionsFile ? [o.score.dimensionsFile] : []),
      ...(o.score.metricFile ? [o.score.metricFile] : []),
    ],
  });
  const artifact = createWorkspaceArtifact(
    createFileArtifact({ root: o.dir, mutable: o.files.targetFiles, readOnly: o.files.readOnlyFiles }),
    rollback,
  );
  const commandHarness = (cwd: string) => runCommandHarness(o, cwd);
  const harness = o.parallel?.harness ?? commandHarness(o.dir);
  const stop = autoIterateStopPolicy(o.stop);
  const guards = [...o.keep.guards];
  if (o.keep.checks) guards.push(checksGuard(o, o.keep.checks));
  const sealedHoldout = autoIterateHoldout(o, branch, clock);
  // Last: the gate assumes that a candidate it passes is kept.
  if (sealedHoldout?.holdout.guard) guards.push(sealedHoldout.holdout.guard);
  const regexScorer = createRegexScorer({
    pattern,
    direction,
    match: o.score.match,
    ...(o.score.metricFile ? { metricFile: join(o.dir, o.score.metricFile) } : {}),
    ...(Object.keys(patterns).length > 0 ? { metrics: patterns } : {}),
  });
  const wired = wireConstraints(regexScorer, o.keep.policy, patterns, checked.constraints, o.score.metrics);
  const scorer = wired.scorer;
  const loop = createLoop({
    artifact,
    rollback,
    harness,
    ...(o.proposer ? { proposer: o.proposer } : {}),
    scorer: o.score.dimensionsFile ? withLogDimensions(scorer) : scorer,
    // Each row's candidate record (curves, metrics, params, cost) survives a resume in .loop/records.jsonl.
    results: withRecordData(
      o.score.dimensionsFile
        ? withDimensionsTsv(createResultsTsv({ path: resultsPath }), { path: join(o.dir, o.score.dimensionsFile) })
        : createResultsTsv({ path: resultsPath }),
      {
        path: join(o.dir, RUN_FILES.records),
        onError: (message) => process.stderr.write(`${message}\n`),
      },
    ),
    stop,
    advisors: [
      createCircuitBreaker({
        pauseAfterCrashes: o.recovery.pauseAfterCrashes,
        cooldownAfterDiscards: o.recovery.cooldownAfterDiscards,
        notifyAfterDiscards: o.recovery.notifyAfterDiscards,
      }),
    ],
    files: { statePath: join(o.dir, RUN_FILES.state) },
    keep: {
      // Seed 001: a discarded change is never retried verbatim (a tree already evaluated is not run again).
      skipDuplicates: true,
      guards,
      ...(wired.keepPolicy ? { policy: wired.keepPolicy } : {}),
      ...(o.keep.seedOnly
        ? {
            seedOnlyDetector: createSeedOnlyDetector({
              root: o.dir,
              files: o.files.targetFiles,
              seedKeys: o.keep.seedOnly.seedKeys,
            }),
          }
        : {}),
    },
    recovery: { maxRepairAttempts: o.recovery.maxRepairAttempts },
    clock,
    ...(o.run.baselineRepeats !== undefined ? { run: { baselineRepeats: o.run.baselineRepeats } } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.parallel ? { parallel: coreParallelOptions(o, commandHarness) } : {}),
    ...(o.prune && o.prune.pruners.length > 0 ? { prune: o.prune } : {}),
    ...(sealedHoldout ? { onStop: sealedHoldout.holdout.onStop } : {}),
  });

  wired.watch(loop);

  /** run()'s prologue: the checks, the workspace lock, the run branch; the lock is the caller's to release. */
  const prepare = async () => {
    await assertRepositoryRoot(o.dir);
    const missing: number[] = [];
    for (const [i, f] of o.files.targetFiles.entries()) await stat(join(o.dir, f)).catch(() => missing.push(i));
    if (missing.length > 0)
      throw new ConfigError(
        'auto-iterate',
        missing.map((i) => ({
          path: pathOf(`files.targetFiles.${i}`),
          message: `${o.files.targetFiles[i]} does not exist in ${o.dir}`,
        })),
      );
    await sealedHoldout?.prepare();
    // In a linked worktree or a submodule the lock goes in the directory its `.git` file names.
    const lock = await acquireLock({ path: join(gitDirOf(o.dir), 'loop-workspace') });
    try {
      if (o.files.archive && !o.recovery.resume) {
        const files = [
          o.files.logFile,
          ...(o.score.dimensionsFile ? [o.score.dimensionsFile] : []),
          ...(o.score.metricFile ? [o.score.metricFile] : []),
        ];
        const archived = await archiveEarlierRun({
          dir: o.dir,
          into: o.files.archive.into,
          resultsFile: o.files.resultsFile,
          stateFile: RUN_FILES.state,
          files,
          branch,
          allowDirty: o.files.allowDirty,
        });
        if (archived) o.files.archive.onArchived?.(archived);
      }
      // A resume adds the final newline a complete row lost after state.json counted it (issue 32).
      const { rows, repaired } = await readRunRows(resultsPath, join(o.dir, RUN_FILES.state), o.recovery.resume);
      if (repaired !== undefined) process.stderr.write(`[loop] [auto-iterate] resume repaired: ${repaired}\n`);
      if (!o.recovery.resume) await assertNoEarlierRun(resultsPath, rows.length, join(o.dir, RUN_FILES.state));
      else if (rows.length > 0) await assertHarnessCommitted(o.dir, o.files.readOnlyFiles);
      const started = await rollback.start();
      const offResumed = loop.on('resumed', () => {
        const line = describeRepairs(rollback.repairs());
        if (line !== undefined) process.stderr.write(`[loop] [auto-iterate] ${line}\n`);
      });
      return { lock, started, offResumed };
    } catch (error) {
      await lock.release();
      throw error;
    }
  };
  /**
   * A failed baseline committed nothing: take the new run branch away so the next run starts afresh (not
   * BRANCH_EXISTS).
   */
  const afterFailure = async (
    error: unknown,
    started: Awaited<ReturnType<typeof rollback.start>>,
  ): Promise<unknown> => {
    if (isLoopError(error, 'BASELINE_FAILED') && started.created && (await rollback.abandon())) {
      const next = o.signal?.aborted
        ? 'the baseline was interrupted (nothing is wrong with the harness); run "loop run" again'
        : 'fix the harness, then run "loop run" again';
      error.message +=
        `\n[loop] [auto-iterate] the run branch ${branch} was removed ` +
        `and ${started.previousBranch?.replace('refs/heads/', '')} checked out ` +
        `again; ${next}`;
    }
    return wired.explain(error);
  };

  const run = async (): Promise<LoopSummary> => {
    const { lock, started, offResumed } = await prepare();
    try {
      return await loop.run();
    } catch (error) {
      throw await afterFailure(error, started);
    } finally {
      offResumed();
      rollback.stopWatching();
      await lock.release();
    }
  };

  const open = async (): Promise<HostedLoop> => {
    const { lock, started, offResumed } = await prepare();
    return hostedLoop(loop, async (error) => {
      if (error !== undefined) await afterFailure(error, started);
      offResumed();
      rollback.stopWatching();
      await lock.release();
    });
  };
  return { branch, resultsPath, loop, rollback, run, open, ...(sealedHoldout ? { holdout: sealedHoldout } : {}) };
}
