import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileArtifact, createLoop, createMemoryResultsLog, createRegexScorer, maxIterations, type Proposer } from '@loop/core';
import { createGitResetRollback } from '@loop/rollback-git';
import { afterEach, describe, expect, it } from 'vitest';
import { createEvaluationQueue, createRemoteHarness, createRemoteWorkingCopies, createWorker, type LoopWorker } from '../src/index.js';
import { makeWorkspace, type Workspace } from './fixture.js';
import { redisMissing, startRedis, type TestRedis } from './redis-server.js';

const missing = redisMissing();
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanups.splice(0).reverse()) await f();
});

/** A proposer that writes params.txt = 10·iteration + k in its working copy. */
const writeParams: Proposer = {
  name: 'write-params',
  propose: (ctx) => {
    const value = 10 * ctx.iteration + (ctx.workingCopy?.k ?? 0);
    writeFileSync(join(ctx.workingCopy!.dir!, 'params.txt'), String(value));
    return { description: `params ${value}` };
  },
};

export async function remoteLoop(redis: TestRedis, ws: Workspace, options: { queue: string; candidates: number; iterations: number; runId: string }) {
  const queue = createEvaluationQueue({ redis: redis.url, queue: options.queue, pollMs: 50 });
  cleanups.push(() => queue.close());
  const harness = { command: './train.sh', timeBudgetMs: 20_000, fingerprintFiles: ['train.sh'], env: { LOOP_TEST_DIR: ws.scratch, [ws.marker.split('=')[0]!]: ws.marker.split('=')[1]! } };
  const common = { queue, mutable: ['params.txt'], harness, runId: options.runId };
  const results = createMemoryResultsLog();
  const rollback = createGitResetRollback({ dir: ws.root, branch: `loop/${options.runId}`, paths: ['params.txt'], excludes: ['run.log'] });
  await rollback.start();
  const loop = createLoop({
    artifact: createFileArtifact({ root: ws.root, mutable: ['params.txt'], readOnly: ['train.sh'] }),
    rollback,
    results,
    proposer: writeParams,
    harness: createRemoteHarness({ ...common, root: ws.root, repository: ws.root }),
    scorer: createRegexScorer({ pattern: '^score:', direction: 'maximize' }),
    stop: maxIterations(options.iterations),
    parallel: { candidates: options.candidates, workingCopies: createRemoteWorkingCopies({ ...common, root: ws.root, readOnly: ['train.sh'], exclude: ['.git', '.loop', 'run.log'] }) },
  });
  return { loop, results, queue };
}

export async function inProcessWorker(redis: TestRedis, queue: string, extra: { link?: Record<string, string> } = {}): Promise<LoopWorker> {
  const workdir = mkdtempSync(join(tmpdir(), 'loop-worker-'));
  const worker = await createWorker({ redis: redis.url, queue, workdir, lockDurationMs: 2000, stalledIntervalMs: 500, ...extra });
  cleanups.push(async () => {
    await worker.close(true);
    rmSync(workdir, { recursive: true, force: true });
  });
  await worker.ready();
  return worker;
}

describe.skipIf(missing !== undefined)(`a loop whose candidates run on BullMQ workers${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('K = 2 candidates per batch run on two workers; one row each; the winner is committed on the coordinator and its params are what the worker scored', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const ws = makeWorkspace('1');
    cleanups.push(() => ws.cleanup());
    const a = await inProcessWorker(redis, 'q1');
    const b = await inProcessWorker(redis, 'q1');
    const { loop, results, queue } = await remoteLoop(redis, ws, { queue: 'q1', candidates: 2, iterations: 4, runId: 'basic' });
    expect((await queue.workers()).map((w) => w.name).sort()).toEqual([a.identity.id, b.identity.id].sort());
    await loop.run();
    expect(results.rows.map((r) => [r.iteration, r.status, r.score])).toEqual([
      [0, 'baseline', 1],
      [1, 'reverted', 10],
      [2, 'kept', 21],
      [3, 'reverted', 30],
      [4, 'kept', 41],
    ]);
    expect(readFileSync(join(ws.root, 'params.txt'), 'utf8')).toBe('41');
    const log = execFileSync('git', ['log', '--format=%s', 'loop/basic'], { cwd: ws.root, encoding: 'utf8' });
    expect(log.split('\n').filter(Boolean)).toHaveLength(3); // start + two kept candidates
    expect(ws.started().map((l) => l.split(' ')[0])).toEqual(expect.arrayContaining(['0', '1', '2', '3', '4']));
    expect(ws.started()).toHaveLength(5);
  });
});
