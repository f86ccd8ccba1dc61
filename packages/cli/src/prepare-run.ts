import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createAutoIterate,
  createNoNewDependenciesGuard,
  type ArchivedRun,
  type AutoIterate,
  type AutoIterateOptions,
} from '@loop/auto-iterate';
import { type LoopEventType } from '@loop/core';
import { acquireLock } from '@loop/core/files';
import { ConfigFileError, type LoadedConfig } from './load-config.js';
import { keepOptions } from './keep-config.js';
import { holdoutOptions, holdoutSeal } from './holdout-config.js';
import { findLeftoverRuns, type LeftoverRun } from './leftover-runs.js';
import { gitDirOf } from '@loop/rollback-git/git';
import { CLI_STATE_FILE, defaultTag, earlierTag, readResumeTag } from './run-tag.js';

import { assertResumeKeepsFiles } from './resume-guard.js';
import { pruneOptionsOf } from './prune-config.js';
import { resolveRunConfig, type ResolvedRunConfig } from './resolve-run-config.js';
import { createWriteGate, gateRollbackWrites, type WriteGate } from './write-gate.js';
import type { EvaluationQueue } from '@loop/workers-bullmq';
import { parallelOptions } from './run-parallel.js';
import { AGENT_PID_FILE, createProposer, writablePath } from './create-proposer.js';
import { endGroups, runPidFiles } from './run-pid-files.js';

/** The loop events a reporter receives. */
export const REPORTED_EVENTS: readonly LoopEventType[] = [
  'iteration-started',
  'baseline',
  'resumed',
  'kept',
  'reverted',
  'crash',
  'advice',
  'stopped',
];

/** A run built from a config file. */
export interface ConfiguredRun {
  /** The run tag. */
  readonly tag: string;
  /** What the config's target implies (targetFiles, runCommand, metricName, direction, results.tsv, ...). */
  readonly resolved: ResolvedRunConfig;
  /** The auto-iterate run (its `loop` emits the events; `run()` starts it). */
  readonly run: AutoIterate;
  /** The id (commit) of the last kept state seen so far (the baseline's, a keep's, or the resumed one). */
  readonly bestId: () => string | undefined;
  /**
   * What an interrupted earlier run left running (`.loop/run.pgid` and its parallel slots,
   * `.loop/agent.pgid`), read without touching it; core ends it before the next run or agent call.
   */
  readonly leftovers: () => readonly LeftoverRun[];
  /**
   * Ends what an interrupted earlier run left running and this run did not already end (core's
   * sweep runs only before a run command or agent call, so a resume that adds no iteration would
   * leave them): every remaining `.loop/run.pgid` slot and `.loop/agent.pgid`, token-checked,
   * SIGTERM then SIGKILL after `graceMs`. Call it after `run()` has returned (no run of this
   * process is in flight then).
   *
   * Touches nothing unless this run took the workspace lock (it got as far as `resumed` or its
   * first iteration): a run refused with `LOCK_HELD` must not end the in-flight harness of the
   * run that holds it (issue 32). The sweep itself takes the lock again, so it does nothing when
   * another run has started in the meantime. @returns the ended process groups' ids.
   */
  readonly endLeftovers: (graceMs: number) => Promise<number[]>;
  /**
   * Kills the run commands in flight now: their whole process groups, found and token-checked through `.loop/run.pgid`
   * (and `run.pgid.1`, ... of parallel candidates).
   */
  readonly killRunning: () => Promise<void>;
  /**
   * Leaves the workspace at {@link bestId} through the git rollback's `recover` (verified; a newer
   * branch tip stays under `refs/loop/discarded/recovered`); nothing to do before the baseline.
   *
   * @throws {LoopError} `RESUME_MISMATCH` or `RESTORE_FAILED` from the rollback.
   */
  readonly recoverLastKept: () => Promise<void>;
  /** The rollback's writes, counted; the interrupt handler closes it and waits for the one in flight before exiting. */
  readonly writes: WriteGate;
}

/** Options of {@link prepareRun}. */
export interface PrepareRunOptions {
  /** Continue the interrupted run of this config. */
  resume: boolean;
  /** Aborting stops after restoring the last kept state. */
  signal?: AbortSignal;
  /** Now in ms, for the default tag. @default Date.now() */
  now?: number;
  /**
   * `loop run --new` (ignored with `resume`): an earlier run in the workspace is archived under
   * `.loop/runs/<its tag>/` (auto-iterate's `archive` option, inside the workspace lock) and a new
   * run starts. @default false
   */
  startNew?: boolean;
  /** Hears what `startNew` moved. @default nothing */
  onArchived?: (archived: ArchivedRun) => void;
  /**
   * Receives the one-time "no sandbox" warning of `sandbox: auto` where bwrap does not work. @default a line on stderr
   */
  onWarning?: (message: string) => void;
  /**
   * Receives the agent proposer's report when a call exited 0 and changed no target (its log's
   * path and last lines, a sandbox refusal; core's `onNoChange`). @default lines on stderr
   */
  onNotice?: (message: string) => void;
}

/**
 * Maps a loaded config onto `createAutoIterate` options and builds the run. A new run records
 * its tag in `.loop/cli.json` once the baseline is in; a resume takes the tag from the config,
 * that file, or the checked-out `auto-iterate/<tag>` branch.
 *
 * A resume's `run()` first refuses (`CONFIG_INVALID`, nothing touched) when its repair would
 * reset the config file or a read-only file the user changed since the last kept commit
 * (see `assertResumeKeepsFiles`).
 *
 * @throws {ConfigFileError} `CONFIG_INVALID` for invalid options or no run to resume.
 */
export function prepareRun(loaded: LoadedConfig, options: PrepareRunOptions): ConfiguredRun {
  const { config, dir, file } = loaded;
  const resolved = resolveRunConfig(config);
  const now = options.now ?? Date.now();
  const startNew = options.startNew === true && !options.resume;
  const earlier = startNew ? earlierTag(dir, now) : undefined;
  const fresh = `${defaultTag(now)}${resolved.targetSlug ? `-${resolved.targetSlug}` : ''}`;
  // The default tag has a one-second resolution: a --new run in the second the earlier one started takes `-2`.
  const tag = config.tag ?? (options.resume ? readResumeTag(dir, file) : fresh === earlier ? `${fresh}-2` : fresh);
  const archive =
    earlier !== undefined
      ? {
          into: `.loop/runs/${earlier.replace(/[^A-Za-z0-9._-]/g, '_')}`,
          ...(options.onArchived ? { onArchived: options.onArchived } : {}),
        }
      : undefined;
  const onWarning = options.onWarning ?? ((message: string) => void process.stderr.write(`${message}\n`));
  const { parallel, queue } = parallelOptions(config, resolved, dir, tag);
  const holdout = config.holdout
    ? holdoutOptions(config.holdout, dir, holdoutSeal(config.holdout, config.proposer), onWarning)
    : undefined;
  const created = createAutoIterate({
    dir,
    tag,
    targetFiles: resolved.targetFiles,
    readOnlyFiles: resolved.readOnlyFiles,
    runCommand: resolved.runCommand,
    metricName: resolved.metricName,
    direction: resolved.direction,
    resultsFile: resolved.resultsFile,
    ...(resolved.dimensionsFile ? { dimensionsFile: resolved.dimensionsFile } : {}),
    harnessFiles: resolved.harnessFiles,
    // seed 001: CANNOT install dependencies, even inside a mutable skill or memory folder
    ...(config.target ? { guards: [createNoNewDependenciesGuard(resolved.targetFiles)] } : {}),
    ...(config.pattern !== undefined ? { pattern: config.pattern } : {}),
    match: config.match,
    ...(config.metricFile !== undefined ? { metricFile: config.metricFile } : {}),
    fingerprintPaths: config.fingerprintPaths,
    timeBudgetS: config.timeBudgetS,
    killTimeoutS: config.killTimeoutS,
    maxIterations: config.maxIterations,
    ...keepOptions(config.keep),
    ...(config.metrics ? { metrics: config.metrics } : {}),
    ...(config.constraints.length > 0 ? { constraints: config.constraints } : {}),
    ...(config.plateau !== undefined ? { plateau: config.plateau } : {}),
    stopAfterNoChange: config.stopAfterNoChange,
    ...(config.targetScore !== undefined ? { targetScore: config.targetScore } : {}),
    ...(config.wallClockS !== undefined ? { wallClockS: config.wallClockS } : {}),
    proposer: createProposer(
      config,
      dir,
      resolved.resultsFile,
      onWarning,
      options.onNotice ?? onWarning,
      holdout ? [...holdout.files, holdout.stateDir] : [],
    ),
    ...(config.costBudget !== undefined ? { costBudget: config.costBudget } : {}),
    ...(config.tokenBudget !== undefined ? { tokenBudget: config.tokenBudget } : {}),
    ...(config.harness
      ? {
          harnessSandbox: {
            sandbox: config.harness.sandbox,
            writable: config.harness.writable.map((w) => writablePath(dir, w)),
            network: config.harness.network,
            onSandboxWarning: onWarning,
          },
        }
      : {}),
    resume: options.resume,
    ...(archive ? { archive } : {}),
    allowDirty: config.allowDirty,
    ...(config.deferStagingAt === undefined ? {} : { deferStagingAt: config.deferStagingAt }),
    maxRepairAttempts: config.maxRepairAttempts,
    pauseAfterCrashes: config.pauseAfterCrashes,
    cooldownAfterDiscards: config.cooldownAfterDiscards,
    notifyAfterDiscards: config.notifyAfterDiscards,
    logFile: config.logFile,
    keepLogs: config.keepLogs,
    env: config.env,
    ...(config.checks ? { checks: config.checks } : {}),
    ...pruneOptionsOf(config),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(parallel ? { parallel } : {}),
    ...(holdout ? { holdout } : {}),
  });
  // A resume first refuses to reset the config file or a harness file the user changed (before any repair).
  const keepsFiles = () =>
    assertResumeKeepsFiles({
      dir,
      file,
      resultsFile: resolved.resultsFile,
      readOnlyFiles: resolved.readOnlyFiles,
      harnessFiles: resolved.harnessFiles,
    });
  const guarded: AutoIterate = options.resume
    ? {
        ...created,
        run: async () => (await keepsFiles(), created.run()),
        open: async () => (await keepsFiles(), created.open()),
      }
    : created;
  // With workers, the queue's Redis connections are closed when the run ends.
  const run: AutoIterate = queue
    ? {
        ...guarded,
        run: async () => {
          try {
            return await guarded.run();
          } finally {
            await queue.close();
          }
        },
      }
    : guarded;
  const writes = createWriteGate();
  const { recover } = gateRollbackWrites(run.rollback, writes);
  let bestId: string | undefined;
  // Set once the run holds the workspace lock (its first event comes after the lock is taken).
  let tookLock = false;
  run.loop.on('baseline', (e) => {
    bestId = e.record.candidateId;
    // .loop/ is excluded from git by now (the rollback started), so this leaves the tree clean.
    mkdirSync(join(dir, '.loop'), { recursive: true });
    const cliState = { tag, config: file, results: resolved.resultsFile, metricName: resolved.metricName };
    writeFileSync(join(dir, CLI_STATE_FILE), `${JSON.stringify(cliState, null, 2)}` + `\n`);
  });
  run.loop.on('resumed', (e) => {
    bestId = e.bestId;
    tookLock = true;
  });
  run.loop.on('iteration-started', () => {
    tookLock = true;
  });
  run.loop.on('kept', (e) => {
    bestId = e.record.candidateId;
  });
  const allPidFiles = () => [...runPidFiles(dir), join(dir, AGENT_PID_FILE)];
  return {
    tag,
    resolved,
    run,
    bestId: () => bestId,
    leftovers: () => findLeftoverRuns(allPidFiles()),
    endLeftovers: async (graceMs) => {
      if (!tookLock) return [];
      const lock = await acquireLock({ path: join(gitDirOf(dir), 'loop-workspace') }).catch(() => undefined);
      if (!lock) return []; // another run holds the workspace now: what runs there is its own
      try {
        return await endGroups(allPidFiles(), graceMs);
      } finally {
        await lock.release();
      }
    },
    killRunning: async () => void (await endGroups(runPidFiles(dir), 0)),
    recoverLastKept: async () => {
      if (bestId && recover) await recover(bestId);
    },
    writes,
  };
}
