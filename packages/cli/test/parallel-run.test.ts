// `loop run` with a `parallel:` block, in-process on a real git repository: local working copies,
// and a worker pool on a real redis-server (started by the test on a free port).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAutoIterateTsv } from '@loop/auto-iterate';
import { createWorker, type WorkerEvent } from '@loop/workers-bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCliCaptured } from './fixtures/run-cli.js';
import { redisMissing, startRedis, uniqueQueue } from '../../workers-bullmq/test/redis-server.js';

let ws: string;
const cleanups: (() => Promise<void> | void)[] = [];
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: ws, encoding: 'utf8' }).trim();

const loop = (...args: string[]) => runCliCaptured(ws, args);

/** loop init, a mutator over x, maxIterations 4 and the given parallel block; committed. */
async function setup(parallel: Record<string, unknown>) {
  await loop('init');
  const doc = parseDocument(readFileSync(join(ws, 'loop.config.yaml'), 'utf8'));
  doc.setIn(['proposer'], {
    type: 'mutator',
    file: 'config.json',
    space: { x: { min: -10, max: 10, integer: true } },
    seed: 3,
  });
  doc.setIn(['maxIterations'], 4);
  doc.setIn(['timeBudgetS'], 30);
  doc.setIn(['killTimeoutS'], 60);
  doc.setIn(['parallel'], parallel);
  writeFileSync(join(ws, 'loop.config.yaml'), doc.toString());
  git('add', '-A');
  git('commit', '-q', '-m', 'init');
}

/** Every discarded row with a commit id is refs/loop/discarded/<iteration>, holding its own x. */
function expectDiscardsReachable() {
  const rows = parseAutoIterateTsv(readFileSync(join(ws, 'results.tsv'), 'utf8'));
  expect(rows).toHaveLength(5);
  expect(rows.slice(1).filter((r) => r.status !== 'kept' && r.candidateId).length).toBeGreaterThan(0);
  for (const r of rows.slice(1)) {
    if (r.status === 'kept' || !r.candidateId) continue;
    expect(git('rev-parse', '--short=7', `refs/loop/discarded/${r.iteration}`)).toBe(r.candidateId);
  }
  return rows;
}

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'loop-parallel-run-'));
  writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 0 }));
  writeFileSync(
    join(ws, 'eval.mjs'),
    "import { readFileSync } from 'node:fs';\nconst { x } = " +
      "JSON.parse(readFileSync('config.json', 'utf8'));\nconsole.log('cwd: ' + " +
      "process.cwd());\nconsole.log('score: ' + ((x - 3) ** 2 + 1));\n",
  );
  git('init', '-q', '-b', 'main');
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  rmSync(ws, { recursive: true, force: true });
});

describe('loop run with parallel: (issue 15)', () => {
  it(
    'parallel: { candidates: 2 } runs K = 2 local working copies per batch: ' +
      '4 candidate rows in 2 batches, the best kept, the others reachable as ' +
      'refs/loop/discarded/<n>',
    async () => {
      await setup({ candidates: 2 });
      const run = await loop('run');
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      const rows = expectDiscardsReachable();
      const best = Math.min(
        ...rows.filter((r) => r.status === 'kept' || r.status === 'baseline').map((r) => r.score as number),
      );
      expect(((JSON.parse(readFileSync(join(ws, 'config.json'), 'utf8')) as { x: number }).x - 3) ** 2 + 1).toBe(best);
      expect(git('status', '--porcelain')).toBe('');
    },
  );

  it(
    'parallel.workers with metricFile is CONFIG_INVALID naming ' +
      'parallel.workers (the metric file would stay on the worker)',
    async () => {
      await setup({ candidates: 2, workers: { redis: 'redis://127.0.0.1:1' } });
      const file = join(ws, 'loop.config.yaml');
      const doc = parseDocument(readFileSync(file, 'utf8'));
      doc.setIn(['metricFile'], '.loop/metric.txt');
      writeFileSync(file, doc.toString());
      const run = await loop('run');
      expect(run.code).not.toBe(0);
      expect(run.err).toContain('CONFIG_INVALID');
      expect(run.err).toContain('parallel.workers');
      expect(run.err).toContain('metricFile is written on the worker');
    },
  );

  const missing = redisMissing();
  it.skipIf(missing !== undefined)(
    `parallel: { candidates: 2, workers: { redis, queue } } sends every ` +
      `evaluation (baseline included) to a worker pool on a real ` +
      `redis-server${missing ? ` (skipped: ${missing})` : ''}`,
    async () => {
      const redis = await startRedis();
      cleanups.push(() => redis.stop());
      const queue = uniqueQueue('cli-par');
      const workdir = mkdtempSync(join(tmpdir(), 'loop-worker-'));
      const events: WorkerEvent[] = [];
      const worker = await createWorker({
        redis: redis.url,
        queue,
        workdir,
        concurrency: 2,
        onEvent: (e) => void events.push(e),
      });
      cleanups.push(async () => {
        await worker.close(true);
        rmSync(workdir, { recursive: true, force: true });
      });
      await worker.ready();
      await setup({ candidates: 2, workers: { redis: redis.url, queue } });
      const run = await loop('run');
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expectDiscardsReachable();
      // 1 baseline + 4 candidates, each evaluated by the worker in its own worktree under workdir.
      expect(events.filter((e) => e.type === 'evaluated')).toHaveLength(5);
      expect(readFileSync(join(ws, 'run.log'), 'utf8')).toContain(`cwd: ${workdir}`);
    },
  );
});
