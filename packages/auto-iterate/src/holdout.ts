import { join } from 'node:path';
import { createCommandHarness, createRegexScorer, LoopError, type Clock } from '@loop/core';
import { checkHoldoutSeal, createHoldout, holdoutFileList, holdoutStateDir, type Holdout } from '@loop/core/policies';
import { findBlobs } from '@loop/rollback-git/git';
import type { ParsedAutoIterateOptions } from './auto-iterate-schema.js';

type Parsed = ParsedAutoIterateOptions;

/** The holdout's log inside its state folder (truncated each use). */
export const HOLDOUT_LOG = 'holdout.log';

/** A configured sealed holdout of an auto-iterate run, and the checks that must pass before the run starts. */
export interface AutoIterateSealedHoldout {
  /** core's holdout: `evaluate` for `loop holdout`, its guard and `onStop` are wired into the loop. */
  readonly holdout: Holdout;
  /** Whether the proposer is sealed from it (`sealed` and a sandboxed proposer). */
  readonly sealed: boolean;
  /**
   * Refuses an unsealable holdout (`checkHoldoutSeal`; its files' bytes among the repository's
   * objects: `git cat-file` would read them), then starts it (state folder, fingerprint, earlier uses).
   * @throws {LoopError} `HOLDOUT_NOT_SEALED`.
   */
  readonly prepare: () => Promise<void>;
}

/**
 * Builds the holdout of `o.holdout` (issue 33): a command harness in `o.dir`, read-only there under bwrap, logging to
 * its state folder.
 */
export function autoIterateHoldout(o: Parsed, run: string, clock: Clock): AutoIterateSealedHoldout | undefined {
  const h = o.holdout;
  if (!h) return undefined;
  const stateDir = h.stateDir ?? holdoutStateDir(o.dir);
  const direction = h.direction ?? o.score.direction;
  const pattern = h.pattern ?? `^${h.metricName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\s*(\\S+)`;
  const timeBudgetMs = Math.round((h.timeBudgetS ?? o.run.timeBudgetS) * 1000);
  const harness = createCommandHarness({
    command: h.command,
    cwd: o.dir,
    logFile: join(stateDir, HOLDOUT_LOG),
    timeBudgetMs,
    killTimeoutMs: Math.max(timeBudgetMs, Math.round(o.run.killTimeoutS * 1000)),
    env: o.run.env,
    readOnlyCwd: true,
    sandbox: h.sandbox,
    network: false,
    // Its files may lie outside the workspace (a sibling folder under /tmp): readable in the sandbox.
    readable: h.files,
    ...(h.onNotice ? { onSandboxWarning: h.onNotice } : {}),
  });
  const holdout = createHoldout({
    harness,
    scorer: createRegexScorer({ pattern, direction }),
    direction,
    command: h.command,
    files: h.files,
    stateDir,
    run,
    clock,
    ...(h.gate ? { gate: h.gate } : {}),
    ...(h.onNotice ? { onNotice: h.onNotice } : {}),
  });
  const prepare = async () => {
    const { files } = checkHoldoutSeal({
      workspace: o.dir,
      files: h.files,
      stateDir,
      sandboxed: h.sandboxed,
      sealed: h.sealed,
    });
    const leaked = await findBlobs({ cwd: o.dir }, files);
    if (leaked.length > 0) {
      throw new LoopError(
        'HOLDOUT_NOT_SEALED',
        `[loop] [holdout] the bytes of ${leaked.join(', ')} are stored in the ` +
          `git objects of ${o.dir} (committed or staged once): the proposer could ` +
          `read them with git cat-file; use a holdout that never entered this ` +
          `repository, or rewrite its history and prune (git gc --prune=now)`,
        { details: { leaked } },
      );
    }
    await holdout.start();
  };
  return { holdout, sealed: h.sealed && h.sandboxed, prepare };
}
