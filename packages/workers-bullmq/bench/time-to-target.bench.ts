// Time-to-target of parallel candidates at the same K (issue 15): local directory working copies
// (core, the command harness in each copy) against K `loop-worker` processes on this machine (this
// package's remote working copies and harness), with the same sleep-bound harness and the same
// deterministic proposer (params = 10 * iteration + k, maximize), stopped by the target score the
// second batch reaches. Reports wall seconds from the loop's start (baseline included) and the
// ratio remote / local per cycle, the two interleaved (BENCH_CYCLES, default 3), with the load. Needs redis-server on
// PATH (a private one is started).
//   pnpm --filter @loop/workers-bullmq exec tsx --conditions=source bench/time-to-target.bench.ts
//   (BENCH_SLEEP_S=1 BENCH_K=2,4 by default)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  anyOf,
  createCommandHarness,
  createFileArtifact,
  createLoop,
  createMemoryResultsLog,
  createRegexScorer,
  maxIterations,
  type WorkingCopyProvider,
  type Harness,
} from '@loop/core';
import { createDirectoryWorkingCopies } from '@loop/core/artifacts';
import { targetScore } from '@loop/core/policies';
import { createGitResetRollback } from '@loop/rollback-git';
import { createEvaluationQueue, createRemoteHarness, createRemoteWorkingCopies } from '../src/index.js';
import { makeWorkspace, spawnWorker, type WorkerProcess } from '../test/fixture.js';
import { writeParams } from '../test/helpers.js';
import { redisMissing, startRedis } from '../test/redis-server.js';
import { formatRatio, interleave, loadLine, pairRatios, timeOf, type Spread } from '@loop/internal-test-utils/bench';

const SLEEP_S = Number(process.env.BENCH_SLEEP_S ?? 1);
const KS = (process.env.BENCH_K ?? '2,4').split(',').map(Number);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 3);

/** Runs one loop to the target of the second batch (10·2K + K − 1) and returns its wall seconds. */
async function timeToTarget(
  k: number,
  branch: string,
  root: string,
  wire: { harness: Harness; workingCopies: WorkingCopyProvider },
): Promise<number> {
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
  if (summary.best !== 10 * 2 * k + k - 1)
    throw new Error(`K=${k} ${branch}: best ${summary.best}, expected ${10 * 2 * k + k - 1}`);
  return seconds;
}

async function main() {
  const why = redisMissing();
  if (why) {
    console.log(`time-to-target bench skipped: ${why}`);
    return;
  }
  const redis = await startRedis();
  const rows: Array<{ k: number; local: Spread; remote: Spread; ratio: Spread; load: string }> = [];
  try {
    for (const k of KS) {
      const env = { LOOP_TEST_SLEEP: String(SLEEP_S) };
      const spec = { command: './train.sh', timeBudgetMs: 60_000, fingerprintFiles: ['train.sh'] };
      // Local: K directory copies, each evaluated by the command harness in the copy.
      const local = async () => {
        const ws = makeWorkspace('1');
        try {
          const s = await timeToTarget(k, 'loop/local', ws.root, {
            harness: createCommandHarness({ ...spec, cwd: ws.root, env: { ...env, LOOP_TEST_DIR: ws.scratch } }),
            workingCopies: createDirectoryWorkingCopies({
              root: ws.root,
              mutable: ['params.txt'],
              readOnly: ['train.sh'],
              exclude: ['.git', '.loop', 'run.log'],
              harness: (cwd) => createCommandHarness({ ...spec, cwd, env: { ...env, LOOP_TEST_DIR: ws.scratch } }),
            }),
          });
          return { measuredMs: s * 1000 };
        } finally {
          ws.cleanup();
        }
      };
      // Remote: K worker processes (each its own workdir and clone), the baseline on the pool too.
      const remote = async () => {
        const ws = makeWorkspace('1');
        const queueName = `ttt-${k}-${Date.now()}`;
        const dirs = Array.from({ length: k }, () => mkdtempSync(join(tmpdir(), 'loop-bench-worker-')));
        const workers: WorkerProcess[] = dirs.map((dir) =>
          spawnWorker(['--redis', redis.url, '--queue', queueName, '--workdir', dir]),
        );
        try {
          await Promise.all(workers.map((w) => w.ready));
          const queue = createEvaluationQueue({ redis: redis.url, queue: queueName });
          const common = {
            queue,
            mutable: ['params.txt'],
            runId: queueName,
            harness: { ...spec, env: { ...env, LOOP_TEST_DIR: ws.scratch } },
          };
          const s = await timeToTarget(k, 'loop/remote', ws.root, {
            harness: createRemoteHarness({ ...common, root: ws.root, repository: ws.root }),
            workingCopies: createRemoteWorkingCopies({
              ...common,
              root: ws.root,
              readOnly: ['train.sh'],
              exclude: ['.git', '.loop', 'run.log'],
            }),
          });
          await queue.close();
          return { measuredMs: s * 1000 };
        } finally {
          await Promise.all(workers.map((w) => w.kill('SIGTERM')));
          for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
          ws.cleanup();
        }
      };
      // Interleaved (issue 31): local and remote alternate per cycle; the ratio is per cycle.
      const result = await interleave({ local, remote }, { cycles: CYCLES, warmup: 0 });
      rows.push({
        k,
        local: timeOf(result, 'local'),
        remote: timeOf(result, 'remote'),
        ratio: pairRatios(result, 'remote', 'local'),
        load: loadLine(result.load),
      });
    }
  } finally {
    await redis.stop();
  }
  console.log(
    `time-to-target bench: sleep-bound harness (${SLEEP_S} s per ` +
      `evaluation), baseline + 2 batches of K; ` +
      `ideal ${(3 * SLEEP_S).toFixed(0)} s; ${CYCLES} interleaved cycles per K`,
  );
  for (const r of rows) console.log(`K = ${r.k}: ${r.load}`);
  const s = (t: Spread) =>
    `${(t.median / 1000).toFixed(2)} (${(t.min / 1000).toFixed(2)}-${(t.max / 1000).toFixed(2)})`;
  console.table(
    rows.map((r) => ({
      K: r.k,
      'local copies s': s(r.local),
      'K workers s': s(r.remote),
      'workers / local, per cycle': formatRatio(r.ratio),
    })),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
