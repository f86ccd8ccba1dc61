import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidsWithEnv } from '@loop/internal-test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createRemoteHarness, type EvaluationQueueEvent } from '../src/index.js';
import { spawnWorker, until } from './fixture.js';
import { cleanups, inProcessWorker, queueOf, remoteLoop, runCleanups, specOf } from './helpers.js';
import { redisMissing, restartMissing } from './redis-server.js';
import { Q, never, noneLeft, scorer, setup } from './fault-setup.js';

const missing = redisMissing();
afterEach(runCleanups);

describe.skipIf(missing !== undefined)(
  `faults a pool of BullMQ workers survives${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it(
      'a worker SIGKILLed mid-job: its lock expires, another worker runs the ' +
        'job again, and the candidate still has exactly one row',
      async () => {
        const { redis, ws } = await setup('1');
        const workdirA = mkdtempSync(join(tmpdir(), 'loop-worker-a-'));
        const workdirB = mkdtempSync(join(tmpdir(), 'loop-worker-b-'));
        cleanups.push(
          () => rmSync(workdirA, { recursive: true, force: true }),
          () => rmSync(workdirB, { recursive: true, force: true }),
        );
        const args = (dir: string) => [
          '--redis',
          redis.url,
          '--queue',
          Q.kill,
          '--workdir',
          dir,
          '--lock-ms',
          '1000',
          '--stalled-ms',
          '300',
        ];
        const a = spawnWorker(args(workdirA));
        cleanups.push(() => a.kill());
        await a.ready;
        const { loop, results } = await remoteLoop(redis, ws, {
          queue: Q.kill,
          candidates: 1,
          iterations: 1,
          runId: 'killed',
          spec: { env: { LOOP_TEST_GATE_ITERATION: '1' } },
        });
        const running = loop.run();
        await until('iteration 1 started on worker A', () => ws.started().some((l) => l.startsWith('1 ')));
        const b = spawnWorker(args(workdirB));
        cleanups.push(() => b.kill());
        await b.ready;
        await a.kill('SIGKILL');
        ws.openGate();
        await running;
        expect(results.rows.map((r) => [r.iteration, r.status, r.score])).toEqual([
          [0, 'baseline', 1],
          [1, 'kept', 10],
        ]);
        expect(ws.started().filter((l) => l.startsWith('1 '))).toHaveLength(2); // run on A (killed), then on B
        expect(
          b.events
            .filter((e) => e.type === 'evaluated')
            .map((e) => (e as { result: { exitCode: number } }).result.exitCode),
        ).toContain(0);
        await noneLeft(ws);
      },
    );

    it(
      'a worker with another harness version refuses the job; when attempts ' +
        'run out the crash row names the worker and both fingerprints',
      async () => {
        const { redis, ws } = await setup('1');
        mkdirSync(join(ws.root, 'harness'));
        writeFileSync(join(ws.root, 'harness/version.txt'), 'v1\n'); // not in git: each machine provides its own
        const other = mkdtempSync(join(tmpdir(), 'loop-harness-v2-'));
        cleanups.push(() => rmSync(other, { recursive: true, force: true }));
        writeFileSync(join(other, 'version.txt'), 'v2\n');
        const worker = await inProcessWorker(redis, Q.refuse, { link: { harness: other } });
        const events: EvaluationQueueEvent[] = [];
        const queue = queueOf(redis, Q.refuse, events, 2);
        const harness = createRemoteHarness({
          queue,
          root: ws.root,
          repository: ws.root,
          mutable: ['params.txt'],
          harness: specOf(ws, { fingerprintFiles: ['train.sh', 'harness/version.txt'] }),
          runId: Q.refuse,
        });
        const record = await harness.run({ iteration: 0, signal: never, repeat: 0 });
        expect(record.error).toContain(`refused by worker ${worker.identity.id}`);
        expect(record.error).toContain(`the coordinator's is ${(await harness.fingerprint!()).slice(0, 12)}`);
        expect(record.error).toContain('after 2 attempt(s)');
        const score = await scorer.score(record);
        expect(score).toMatchObject({ ok: false, reason: 'harness-error' });
        expect(events.filter((e) => e.type === 'failed')).toHaveLength(1);
        expect(ws.started()).toEqual([]); // the command never ran
      },
    );

    it(
      'a job past its kill timeout on the worker is a timeout crash, and no ' + 'process of it is left on the worker',
      async () => {
        const { redis, ws } = await setup('1');
        await inProcessWorker(redis, Q.timeout);
        const queue = queueOf(redis, Q.timeout);
        const harness = createRemoteHarness({
          queue,
          root: ws.root,
          repository: ws.root,
          mutable: ['params.txt'],
          harness: specOf(ws, { timeBudgetMs: 300, killTimeoutMs: 600, graceMs: 200, env: { LOOP_TEST_HANG: '1' } }),
          runId: Q.timeout,
        });
        const record = await harness.run({ iteration: 0, signal: never, repeat: 0 });
        expect(record.timedOut).toBe(true);
        expect(await scorer.score(record)).toMatchObject({ ok: false, reason: 'timeout' });
        expect(ws.started()).toHaveLength(1);
        expect(pidsWithEnv(ws.marker)).toEqual([]); // the sleep grandchild too
      },
    );

    it.skipIf(restartMissing() !== undefined)(
      'Redis restarted empty mid-job: the coordinator reconnects, submits the lost job again, and gets one result',
      async () => {
        const { redis, ws } = await setup('7');
        await inProcessWorker(redis, Q.restart);
        const events: EvaluationQueueEvent[] = [];
        const queue = queueOf(redis, Q.restart, events);
        const harness = createRemoteHarness({
          queue,
          root: ws.root,
          repository: ws.root,
          mutable: ['params.txt'],
          harness: specOf(ws, { env: { LOOP_TEST_GATE_ITERATION: '0' } }),
          runId: Q.restart,
        });
        const pending = harness.run({ iteration: 0, signal: never, repeat: 0 });
        await until('the job started', () => ws.started().length === 1);
        await redis.restart();
        ws.openGate();
        const record = await pending;
        expect(await scorer.score(record)).toMatchObject({ ok: true, value: 7 });
        expect(events.some((e) => e.type === 'resubmitted')).toBe(true);
        await noneLeft(ws);
      },
    );

    it(
      'a worker SIGKILLed mid-run and restarted on the same workdir: the ' +
        'workdir lock is taken over and the next run in the slot ends the ' +
        'orphaned process group',
      async () => {
        const { redis, ws } = await setup('2');
        const workdir = mkdtempSync(join(tmpdir(), 'loop-worker-orphan-'));
        cleanups.push(() => rmSync(workdir, { recursive: true, force: true }));
        const args = [
          '--redis',
          redis.url,
          '--queue',
          Q.orphan,
          '--workdir',
          workdir,
          '--lock-ms',
          '1000',
          '--stalled-ms',
          '300',
          '--max-stalled',
          '0',
        ];
        const a = spawnWorker(args);
        cleanups.push(() => a.kill());
        await a.ready;
        const queue = queueOf(redis, Q.orphan);
        const options = { queue, root: ws.root, repository: ws.root, mutable: ['params.txt'], runId: 'orphan' };
        const orphanMark = 'LOOP_WORKERS_ORPHAN=1';
        const gated = createRemoteHarness({
          ...options,
          harness: specOf(ws, { env: { LOOP_TEST_GATE_ITERATION: '1', LOOP_WORKERS_ORPHAN: '1' } }),
        });
        const lost = Promise.resolve(gated.run({ iteration: 1, signal: never, repeat: 0 }));
        await until('iteration 1 started on worker A', () => ws.started().length === 1);
        await a.kill('SIGKILL');
        expect(pidsWithEnv(orphanMark).length).toBeGreaterThan(0); // the run's group outlived its worker
        const b = spawnWorker(args);
        cleanups.push(() => b.kill());
        await b.ready;
        // not run again (max-stalled 0)
        expect(await lost).toMatchObject({ error: expect.stringContaining('stalled') });
        expect(pidsWithEnv(orphanMark).length).toBeGreaterThan(0); // a restarted worker alone does not end it
        const next = createRemoteHarness({ ...options, harness: specOf(ws) });
        expect(await scorer.score(await next.run({ iteration: 2, signal: never, repeat: 0 }))).toMatchObject({
          ok: true,
          value: 2,
        });
        expect(pidsWithEnv(orphanMark)).toEqual([]);
        await noneLeft(ws);
      },
    );
  },
);
