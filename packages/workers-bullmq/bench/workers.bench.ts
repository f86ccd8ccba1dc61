// Throughput of a pool of worker processes with a sleep-bound harness (issue 15): 1, 2, 4 and 8
// `loop-worker` processes on this machine, 4 jobs per worker submitted at once, each a command that
// sleeps SLEEP_S seconds. Reports evaluations per hour and the ratio to one worker per cycle, the
// pool sizes interleaved (BENCH_CYCLES, default 2), with the load (target: at least 0.9 × N). Needs redis-server on
// PATH (a private one is started).
//   pnpm --filter @loop/workers-bullmq bench     (BENCH_SLEEP_S=3 BENCH_WORKERS=1,2,4,8 by default)
// Each worker first gets one warm-up job (1 s, not timed: its clone of the run is made then).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEvaluationQueue, createRemoteHarness } from '../src/index.js';
import { makeWorkspace, spawnWorker, type WorkerProcess } from '../test/fixture.js';
import { redisMissing, startRedis } from '../test/redis-server.js';
import {
  formatRatio,
  formatTime,
  interleave,
  loadLine,
  spread,
  timeOf,
  type Interleaved,
} from '@loop/internal-test-utils/bench';

const SLEEP_S = Number(process.env.BENCH_SLEEP_S ?? 3);
const COUNTS = (process.env.BENCH_WORKERS ?? '1,2,4,8').split(',').map(Number);
const JOBS_PER_WORKER = 4;
const CYCLES = Number(process.env.BENCH_CYCLES ?? 2);

async function main() {
  const why = redisMissing();
  if (why || !process.env.PATH?.split(':').length) {
    console.log(`workers bench skipped: ${why}`);
    return;
  }
  const redis = await startRedis();
  const ws = makeWorkspace('1');
  const rows = new Map<number, Array<{ jobs: number; seconds: number; perHour: number; overhead: string }>>(
    COUNTS.map((n) => [n, []]),
  );
  const measureCount = async (n: number) => {
    const queueName = `bench-${n}-${Date.now()}`;
    const dirs = Array.from({ length: n }, () => mkdtempSync(join(tmpdir(), 'loop-bench-worker-')));
    const workers: WorkerProcess[] = dirs.map((dir) =>
      spawnWorker(['--redis', redis.url, '--queue', queueName, '--workdir', dir]),
    );
    try {
      await Promise.all(workers.map((w) => w.ready));
      const queue = createEvaluationQueue({ redis: redis.url, queue: queueName });
      const harnessOf = (sleepS: number) =>
        createRemoteHarness({
          queue,
          root: ws.root,
          repository: ws.root,
          mutable: ['params.txt'],
          runId: queueName,
          harness: {
            command: './train.sh',
            timeBudgetMs: 60_000,
            fingerprintFiles: ['train.sh'],
            env: { LOOP_TEST_DIR: ws.scratch, LOOP_TEST_SLEEP: String(sleepS) },
          },
        });
      const never = new AbortController().signal;
      const warm = harnessOf(1);
      await Promise.all(
        Array.from({ length: n }, (_, i) => warm.run({ iteration: 10_000 + i, signal: never, repeat: 0 })),
      );
      const harness = harnessOf(SLEEP_S);
      const jobs = n * JOBS_PER_WORKER;
      const started = performance.now();
      const records = await Promise.all(
        Array.from({ length: jobs }, (_, i) => harness.run({ iteration: i + 1, signal: never, repeat: 0 })),
      );
      const ms = performance.now() - started;
      const seconds = ms / 1000;
      const failed = records.filter((r) => r.exitCode !== 0).length;
      if (failed > 0) throw new Error(`${failed} of ${jobs} evaluations failed`);
      // Mean worker-side ms per timed job: checkout / prepare / run beyond the sleep / collect.
      type Timed = { result: { durationMs: number; timings?: Record<string, number> } };
      const timed = workers
        .flatMap((w) => w.events.filter((e) => e.type === 'evaluated') as unknown as Timed[])
        .filter((e) => e.result.durationMs >= SLEEP_S * 1000);
      const mean = (f: (t: Timed) => number) =>
        (timed.reduce((a, t) => a + f(t), 0) / Math.max(1, timed.length)).toFixed(0);
      const overhead =
        `${mean((t) => t.result.timings?.checkout ?? 0)}/` +
        `${mean((t) => t.result.timings?.prepare ?? 0)}/` +
        `${mean((t) => (t.result.timings?.run ?? 0) - SLEEP_S * 1000)}/` +
        `${mean((t) => t.result.timings?.collect ?? 0)}`;
      rows.get(n)!.push({ jobs, seconds, perHour: (jobs / seconds) * 3600, overhead });
      await queue.close();
      return { measuredMs: ms };
    } finally {
      await Promise.all(workers.map((w) => w.kill('SIGTERM')));
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  };
  // Interleaved (issue 31): each cycle measures every pool size once; ratios are per cycle.
  let result: Interleaved;
  try {
    result = await interleave(Object.fromEntries(COUNTS.map((n) => [`${n}`, () => measureCount(n)])), {
      cycles: CYCLES,
      warmup: 0,
    });
  } finally {
    await redis.stop();
    ws.cleanup();
  }
  const first = COUNTS[0]!;
  console.log(
    `workers bench: sleep-bound harness (${SLEEP_S} s per ` +
      `evaluation), ${JOBS_PER_WORKER} jobs per worker, ` +
      `ideal ${(3600 / SLEEP_S).toFixed(0)} evaluations/hour per ` +
      `worker; ${CYCLES} interleaved cycles`,
  );
  console.log(loadLine(result.load));
  console.table(
    COUNTS.map((n) => {
      const r = rows.get(n)!;
      // Throughput of n workers over that of the first count, per cycle: (jobs_n / s_n) / (jobs_1 / s_1).
      const x = spread(r.map((row, i) => row.perHour / rows.get(first)![i]!.perHour));
      const perHour = spread(r.map((row) => row.perHour));
      return {
        workers: n,
        jobs: r[0]!.jobs,
        'wall s': formatTime(timeOf(result, `${n}`), 0),
        'evals/hour (median)': perHour.median.toFixed(0),
        [`x ${first} worker(s), per cycle`]: formatRatio(x),
        'target 0.9 N': ((0.9 * n) / first).toFixed(1),
        met: x.median >= (0.9 * n) / first ? 'yes' : 'NO',
        'worker ms checkout/prepare/run-sleep/collect': r[r.length - 1]!.overhead,
      };
    }),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
