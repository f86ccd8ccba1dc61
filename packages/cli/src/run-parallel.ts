import { join } from 'node:path';
import { RUN_FILES, type AutoIterateOptions } from '@loop/auto-iterate';
import {
  createEvaluationQueue,
  createRemoteHarness,
  createRemoteWorkingCopies,
  type EvaluationQueue,
} from '@loop/workers-bullmq';
import type { LoopConfig } from './config.js';
import type { ResolvedRunConfig } from './resolve-run-config.js';

/**
 * The config's `parallel:` block as `createAutoIterate`'s `parallel` (issue 15): local working
 * copies, or with `workers`, an evaluation queue on the Redis URL with remote working copies and
 * a remote harness for the baseline and re-measures (run id: the tag, `.` replaced by `_`).
 * Returns the queue so the run closes it when it ends.
 */
export function parallelOptions(
  config: LoopConfig,
  resolved: ResolvedRunConfig,
  dir: string,
  tag: string,
): { parallel?: AutoIterateOptions['parallel']; queue?: EvaluationQueue } {
  const p = config.parallel;
  if (!p) return {};
  const base = {
    candidates: p.candidates,
    link: p.link,
    ...(p.concurrency !== undefined ? { concurrency: p.concurrency } : {}),
    ...(p.remeasureIncumbent !== undefined ? { remeasureIncumbent: p.remeasureIncumbent } : {}),
    ...(p.schedule ? { schedule: p.schedule } : {}),
  };
  if (!p.workers) return { parallel: base };
  const queue = createEvaluationQueue({
    redis: p.workers.redis,
    ...(p.workers.queue ? { queue: p.workers.queue } : {}),
  });
  const common = {
    queue,
    runId: tag.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80),
    // The logs workers send back are kept like local ones: .loop/logs/<iteration>.log (issue 32 item 16).
    keepLogs: { dir: join(dir, RUN_FILES.logs), count: config.keepLogs },
    ...(p.workers.remote ? { remote: p.workers.remote } : {}),
    harness: {
      command: resolved.runCommand,
      logFile: config.logFile,
      timeBudgetMs: Math.round(config.timeBudgetS * 1000),
      killTimeoutMs: Math.round(config.killTimeoutS * 1000),
      env: config.env,
      fingerprintFiles: [...resolved.readOnlyFiles, ...resolved.harnessFiles],
      ...(config.harness ? { sandbox: config.harness.sandbox, network: config.harness.network } : {}),
    },
  };
  const exclude = [
    '.git',
    '.loop',
    resolved.resultsFile,
    config.logFile,
    ...(resolved.dimensionsFile ? [resolved.dimensionsFile] : []),
  ];
  return {
    queue,
    parallel: {
      ...base,
      workingCopies: createRemoteWorkingCopies({
        ...common,
        root: dir,
        mutable: resolved.targetFiles,
        readOnly: resolved.readOnlyFiles,
        exclude,
        link: p.link,
      }),
      harness: createRemoteHarness({ ...common, root: dir, repository: dir, mutable: resolved.targetFiles }),
    },
  };
}
