import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFileArtifact,
  createLoop,
  createMemoryResultsLog,
  createRegexScorer,
  maxIterations,
  type Proposer,
} from '@loop/core';
import { createGitResetRollback } from '@loop/rollback-git';
import { writeFileSync } from 'node:fs';
import {
  createEvaluationQueue,
  createRemoteHarness,
  createRemoteWorkingCopies,
  createWorker,
  type CreateWorkerOptions,
  type EvaluationQueueEvent,
  type HarnessSpec,
  type LoopWorker,
} from '../src/index.js';
import type { Workspace } from './fixture.js';
import type { TestRedis } from './redis-server.js';

/** Functions run after each test, last first. */
export const cleanups: Array<() => unknown> = [];
export async function runCleanups(): Promise<void> {
  for (const f of cleanups.splice(0).reverse()) await f();
}

/** A proposer that writes params.txt = 10·iteration + k in its working copy. */
export const writeParams: Proposer = {
  name: 'write-params',
  propose: (ctx) => {
    const value = 10 * ctx.iteration + (ctx.workingCopy?.k ?? 0);
    writeFileSync(join(ctx.workingCopy!.dir!, 'params.txt'), String(value));
    return { description: `params ${value}` };
  },
};

/** The harness spec of the fixture's train.sh, with the workspace's scratch dir and marker. */
export function specOf(ws: Workspace, extra: Partial<HarnessSpec> = {}): HarnessSpec {
  const [name, value] = ws.marker.split('=') as [string, string];
  return {
    command: './train.sh',
    timeBudgetMs: 20_000,
    fingerprintFiles: ['train.sh'],
    ...extra,
    env: { LOOP_TEST_DIR: ws.scratch, [name]: value, ...extra.env },
  };
}

export function queueOf(redis: TestRedis, queue: string, events: EvaluationQueueEvent[] = [], attempts?: number) {
  const q = createEvaluationQueue({
    redis: redis.url,
    queue,
    pollMs: 50,
    onEvent: (e) => events.push(e),
    ...(attempts ? { attempts } : {}),
  });
  cleanups.push(() => q.close());
  return q;
}

/** A loop over the fixture workspace: baseline and K candidates per batch all on workers of `queue`. */
export async function remoteLoop(
  redis: TestRedis,
  ws: Workspace,
  options: { queue: string; candidates: number; iterations: number; runId: string; spec?: Partial<HarnessSpec> },
) {
  const queue = queueOf(redis, options.queue);
  const common = { queue, mutable: ['params.txt'], harness: specOf(ws, options.spec), runId: options.runId };
  const results = createMemoryResultsLog();
  const rollback = createGitResetRollback({
    dir: ws.root,
    branch: `loop/${options.runId}`,
    paths: ['params.txt'],
    excludes: ['run.log'],
  });
  await rollback.start();
  const loop = createLoop({
    artifact: createFileArtifact({ root: ws.root, mutable: ['params.txt'], readOnly: ['train.sh'] }),
    rollback,
    results,
    proposer: writeParams,
    harness: createRemoteHarness({ ...common, root: ws.root, repository: ws.root }),
    scorer: createRegexScorer({ pattern: '^score:', direction: 'maximize' }),
    stop: maxIterations(options.iterations),
    parallel: {
      candidates: options.candidates,
      workingCopies: createRemoteWorkingCopies({
        ...common,
        root: ws.root,
        readOnly: ['train.sh'],
        exclude: ['.git', '.loop', 'run.log'],
      }),
    },
  });
  return { loop, results, queue };
}

/** A worker in this process with short locks (2 s) and a 0.5 s stalled check. */
export async function inProcessWorker(
  redis: TestRedis,
  queue: string,
  extra: Pick<CreateWorkerOptions, 'link' | 'concurrency' | 'onEvent'> = {},
): Promise<LoopWorker> {
  const workdir = mkdtempSync(join(tmpdir(), 'loop-worker-'));
  const worker = await createWorker({
    redis: redis.url,
    queue,
    workdir,
    lockDurationMs: 2000,
    stalledIntervalMs: 500,
    ...extra,
  });
  cleanups.push(async () => {
    await worker.close(true);
    rmSync(workdir, { recursive: true, force: true });
  });
  await worker.ready();
  return worker;
}
