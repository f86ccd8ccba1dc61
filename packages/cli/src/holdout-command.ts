import { resolve } from 'node:path';
import { acquireLock, readJson } from '@loop/core/files';
import { RUN_FILES } from '@loop/auto-iterate';
import { gitDirOf, runGit } from '@loop/rollback-git/git';
import type { CliIo } from './cli-io.js';
import { EXIT_CODES } from './cli-constants.js';
import { findConfigFile, loadConfig } from './load-config.js';
import { prepareRun } from './prepare-run.js';
import { UsageError } from './usage-error.js';

/**
 * `loop holdout [config]` (issue 33): scores the workspace's current state (after a run: its best
 * kept commit) on the config's sealed holdout, once, holding the workspace lock; the use is
 * counted and recorded in the holdout's state folder like the run's own, and the score printed
 * to the user. Refused (`HOLDOUT_NOT_SEALED`) when the holdout could not be sealed, as `loop run` is.
 */
export async function runHoldoutCommand(io: CliIo, target: string | undefined): Promise<number> {
  const file = findConfigFile(target, io.cwd);
  const loaded = await loadConfig(file);
  if (!loaded.config.holdout)
    throw new UsageError(`loop holdout: ${file} has no holdout: block; add one (docs/holdout.md)`);
  let configured;
  try {
    configured = prepareRun(loaded, { resume: true });
  } catch {
    configured = prepareRun(loaded, { resume: false }); // no run yet: the uses go under a fresh tag
  }
  const sealed = configured.run.holdout!;
  const lock = await acquireLock({ path: resolve(gitDirOf(loaded.dir), 'loop-workspace') });
  try {
    await sealed.prepare();
    const state = (await readJson(resolve(loaded.dir, RUN_FILES.state)).catch(() => undefined)) as
      { iteration?: number; best?: number; bestId?: string } | undefined;
    const head = (await runGit({ cwd: loaded.dir }, ['rev-parse', 'HEAD'])).trim();
    const atBest = state?.bestId !== undefined && head.startsWith(state.bestId.slice(0, 7));
    const use = await sealed.holdout.evaluate('on-demand', {
      iteration: state?.iteration ?? 0,
      id: head,
      ...(atBest && state?.best !== undefined ? { visible: state.best } : {}),
    });
    const score = use.score === undefined ? `crashed (${use.error ?? 'no score'})` : use.score.toFixed(6);
    io.stdout.write(
      `holdout   ${loaded.config.holdout.metricName} ${score} ` +
        `at ${head.slice(0, 7)} (use ${use.use} of run ${use.run}; recorded ` +
        `in ${sealed.holdout.stateDir})\n`,
    );
    if (use.visible !== undefined && use.score !== undefined)
      io.stdout.write(`visible   ${use.visible.toFixed(6)}  gap ${(use.score - use.visible).toFixed(6)}\n`);
    return use.score === undefined ? EXIT_CODES.FAILED : EXIT_CODES.STOPPED;
  } finally {
    await lock.release();
  }
}
