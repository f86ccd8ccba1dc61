import { createAutoIterate, type AutoIterateOptions } from '@loop/auto-iterate';
import type { LoopSummary } from '@loop/core';

/**
 * The auto-iterate options of the example's workspace (see `createWorkspace`): target
 * `params.json`, harness `node score.mjs` (read-only), metric `score`, lower is better, run branch
 * `auto-iterate/host`, `iterations` iterations. `extra` overrides any of them (`resume`, `proposer`).
 */
export function hostOptions(
  dir: string,
  iterations: number,
  extra: Partial<AutoIterateOptions> = {},
): AutoIterateOptions {
  return {
    dir,
    tag: 'host',
    files: { targetFiles: ['params.json'], readOnlyFiles: ['score.mjs'] },
    run: { command: `${JSON.stringify(process.execPath)} score.mjs`, timeBudgetS: 30, killTimeoutS: 60 },
    score: { metricName: 'score', direction: 'minimize' },
    stop: { maxIterations: iterations },
    ...extra,
  };
}

/**
 * An outside host driving auto-iterate with ask/tell: for each trial the host's own "agent"
 * (`agent`, here a function that writes the file) edits the workspace, and the loop evaluates,
 * records, keeps or reverts it. Returns the summary when a stop policy fires.
 *
 * @param agent makes one edit for the trial's iteration and returns its one-line description;
 *   a throw is told as the agent's failure (a `crash` row).
 * @param onRow called with each row's line (`<iteration> <status> <score> <description>`).
 * @throws {LoopError} as `AutoIterate.open()` and `HostedLoop.ask`/`tell` (`LOCK_HELD`, ...).
 */
export async function hostLoop(
  dir: string,
  iterations: number,
  agent: (iteration: number) => string | Promise<string>,
  { resume = false, onRow = (line: string) => console.log(line) } = {},
): Promise<LoopSummary> {
  const loop = await createAutoIterate(hostOptions(dir, iterations, { recovery: { resume } })).open();
  for (;;) {
    const trial = await loop.ask();
    const edit = await Promise.resolve(trial.iteration)
      .then(agent)
      .then(
        (description) => ({ description }),
        (error: unknown) => ({ error: String(error) }),
      );
    const { records, stopped } = await loop.tell(trial, edit);
    for (const r of records) onRow(`${r.iteration} ${r.status} ${r.score ?? '-'} ${r.description}`);
    if (stopped) return stopped;
  }
}
