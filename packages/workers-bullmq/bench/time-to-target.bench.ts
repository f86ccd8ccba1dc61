// Time-to-target of parallel candidates at the same K (issue 15): local directory working copies
// (core, the command harness in each copy) against K `loop-worker` processes on this machine (this
// package's remote working copies and harness), with the same sleep-bound harness and the same
// deterministic proposer (params = 10 * iteration + k, maximize), stopped by the target score the
// second batch reaches. Reports wall seconds from the loop's start (baseline included) and the
// ratio remote / local measured in the same run. Needs redis-server on PATH (a private one is started).
//   pnpm --filter @loop/workers-bullmq exec tsx --conditions=source bench/time-to-target.bench.ts
//   (BENCH_SLEEP_S=1 BENCH_K=2,4 by default)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anyOf, createCommandHarness, createDirectoryWorkingCopies, createFileArtifact, createLoop, createMemoryResultsLog, createRegexScorer, maxIterations, targetScore, type WorkingCopyProvider, type Harness } from '@loop/core';
import { createGitResetRollback } from '@loop/rollback-git';
import { createEvaluationQueue, createRemoteHarness, createRemoteWorkingCopies } from '../src/index.js';
import { makeWorkspace, spawnWorker, type WorkerProcess } from '../test/fixture.js';
import { writeParams } from '../test/helpers.js';
import { redisMissing, startRedis } from '../test/redis-server.js';

const SLEEP_S = Number(process.env.BENCH_SLEEP_S ?? 1);
const KS = (process.env.BENCH_K ?? '2,4').split(',').map(Number);

/** Runs one loop to the target of the second batch (10·2K + K − 1) and returns its wall seconds. */
async function timeToTarget(k: number, branch: string, root: string, wire: { harness: Harness; workingCopies: WorkingCopyProvider }): Promise<number> {
  const rollback = createGitResetRollback({ dir: root, branch, paths: ['params.txt'], excludes: ['run.log'] });
  await rollback.start();
  const results = createMemoryResultsLog();
  const loop = createLoop({
    artifact: createFileArtifact({ root, mutable: ['params.txt'], readOnly: ['train.sh'] }),
    rollback,
    results,
    proposer: writeParams,
    harness: wire.harness,
    scorer: createRegexScorer({ pattern: '^score:', direction: 'maximize' }),
    stop: anyOf(targetScore(10 * 2 * k + k - 1), maxIterations(4 * k)),
    parallel: { candidates: k, workingCopies: wire.workingCopies },
  });
  const started = performance.now();
  const summary = await loop.run();
  const seconds = (performance.now() - started) / 1000;
  if (summary.best !== 10 * 2 * k + k - 1) throw new Error(`K=${k} ${branch}: best ${summary.best}, expected ${10 * 2 * k + k - 1}`);
  return seconds;
}

async function main() {
  const why = redisMissing();
  if (why) {
    console.log(`time-to-target bench skipped: ${why}`);
    return;
  }
  const redis = await startRedis();
  const rows: Array<{ k: number; local: number; remote: number }> = [];
  try {
    for (const k of KS) {
      const env = { LOOP_TEST_SLEEP: String(SLEEP_S) };
      const spec = { command: './train.sh', timeBudgetMs: 60_000, fingerprintFiles: ['train.sh'] };
      // Local: K directory copies, each evaluated by the command harness in the copy.
      const local = makeWorkspace('1');
      const localS = await timeToTarget(k, 'loop/local', local.root, {
        harness: createCommandHarness({ ...spec, cwd: local.root, env: { ...env, LOOP_TEST_DIR: local.scratch } }),
        workingCopies: createDirectoryWorkingCopies({ root: local.root, mutable: ['params.txt'], readOnly: ['train.sh'], exclude: ['.git', '.loop', 'run.log'], harness: (cwd) => createCommandHarness({ ...spec, cwd, env: { ...env, LOOP_TEST_DIR: local.scratch } }) }),
      });
      local.cleanup();
      // Remote: K worker processes (each its own workdir and clone), the baseline on the pool too.
      const remote = makeWorkspace('1');
      const queueName = `ttt-${k}-${Date.now()}`;
      const dirs = Array.from({ length: k }, () => mkdtempSync(join(tmpdir(), 'loop-bench-worker-')));
      const workers: WorkerProcess[] = dirs.map((dir) => spawnWorker(['--redis', redis.url, '--queue', queueName, '--workdir', dir]));
      try {
        await Promise.all(workers.map((w) => w.ready));
        const queue = createEvaluationQueue({ redis: redis.url, queue: queueName });
        const common = { queue, mutable: ['params.txt'], runId: queueName, harness: { ...spec, env: { ...env, LOOP_TEST_DIR: remote.scratch } } };
        const remoteS = await timeToTarget(k, 'loop/remote', remote.root, {
          harness: createRemoteHarness({ ...common, root: remote.root, repository: remote.root }),
          workingCopies: createRemoteWorkingCopies({ ...common, root: remote.root, readOnly: ['train.sh'], exclude: ['.git', '.loop', 'run.log'] }),
        });
        await queue.close();
        rows.push({ k, local: localS, remote: remoteS });
      } finally {
        await Promise.all(workers.map((w) => w.kill('SIGTERM')));
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
        remote.cleanup();
      }
    }
  } finally {
    await redis.stop();
  }
  console.log(`time-to-target bench: sleep-bound harness (${SLEEP_S} s per evaluation), baseline + 2 batches of K; ideal ${(3 * SLEEP_S).toFixed(0)} s`);
  console.table(rows.map((r) => ({ K: r.k, 'local copies s': r.local.toFixed(2), 'K workers s': r.remote.toFixed(2), 'workers / local': (r.remote / r.local).toFixed(2) })));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
