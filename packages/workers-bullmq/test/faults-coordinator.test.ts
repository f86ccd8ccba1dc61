import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRemoteHarness, type EvaluationQueueEvent, type WorkerEvent } from '../src/index.js';
import { readFileSync } from 'node:fs';
import { spawnTs, until } from './fixture.js';
import { cleanups, inProcessWorker, queueOf, runCleanups, specOf } from './helpers.js';
import { redisMissing } from './redis-server.js';
import { COORDINATOR, Q, never, scorer, setup } from './fault-setup.js';

const missing = redisMissing();
afterEach(runCleanups);

describe.skipIf(missing !== undefined)(
  `faults a pool of BullMQ workers survives${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it(
      'a coordinator stopped while its job runs, and a new one submitting the ' +
        'same evaluation: the running job is recognised, run once, its result ' +
        'taken',
      async () => {
        const { redis, ws } = await setup('5');
        await inProcessWorker(redis, Q.resume);
        const spec = specOf(ws, { env: { LOOP_TEST_GATE_ITERATION: '3' } });
        const first = queueOf(redis, Q.resume);
        const options = { root: ws.root, repository: ws.root, mutable: ['params.txt'], harness: spec, runId: Q.resume };
        const lost = Promise.resolve(
          createRemoteHarness({ ...options, queue: first }).run({ iteration: 3, signal: never, repeat: 0 }),
        );
        lost.catch(() => undefined);
        await until('the job started', () => ws.started().length === 1);
        await first.close(); // the coordinator is gone; its job keeps running on the worker
        await expect(lost).rejects.toThrow(/was closed/);
        const events: EvaluationQueueEvent[] = [];
        const second = queueOf(redis, Q.resume, events);
        const resumed = createRemoteHarness({ ...options, queue: second }).run({
          iteration: 3,
          signal: never,
          repeat: 0,
        });
        await until('the new coordinator saw the job', () => events.some((e) => e.type === 'submitted'));
        expect(events[0]).toMatchObject({ type: 'submitted', existing: true });
        ws.openGate();
        expect(await scorer.score(await resumed)).toMatchObject({ ok: true, value: 5 });
        expect(ws.started()).toHaveLength(1);
      },
    );

    it(
      'the coordinator process SIGKILLed mid-batch and started again: it ' +
        'resumes from its rows, recognises the job in flight, and the candidate ' +
        'is run once with one row',
      async () => {
        const { redis, ws } = await setup('1');
        await inProcessWorker(redis, Q.coordinator);
        const rowsPath = join(ws.scratch, 'rows.jsonl');
        const args = [redis.url, Q.coordinator, ws.root, ws.scratch, rowsPath];
        const first = spawnTs(COORDINATOR, args, 'done');
        cleanups.push(() => first.kill());
        await until('iteration 1 started on the worker', () => ws.started().some((l) => l.startsWith('1 ')));
        await first.kill('SIGKILL');
        const rowsOf = () =>
          readFileSync(rowsPath, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { iteration: number; status: string; score: number });
        expect(rowsOf().map((r) => r.iteration)).toEqual([0]);
        const second = spawnTs(COORDINATOR, args, 'done');
        cleanups.push(() => second.kill());
        await until('the resumed coordinator found the job', () =>
          second.events.some((e) => e.type === 'submitted' && String(e.jobId).startsWith('resumed.1.')),
        );
        expect(
          second.events.find((e) => e.type === 'submitted' && String(e.jobId).startsWith('resumed.1.')),
        ).toMatchObject({ existing: true });
        ws.openGate();
        await second.ready;
        expect(rowsOf().map((r) => [r.iteration, r.status, r.score])).toEqual([
          [0, 'baseline', 1],
          [1, 'kept', 10],
        ]);
        expect(ws.started().filter((l) => l.startsWith('1 '))).toHaveLength(1);
      },
    );
    it(
      'the coordinator SIGKILLed mid-batch with the seeded TPE proposer and ' +
        'resumed: it proposes the same two candidates, ' +
        "takes the finished job's result and the running job's, and runs neither again (docs/many-machines.md)",
      async () => {
        const { redis, ws } = await setup('1');
        const evaluated: string[] = [];
        const onEvent = (e: WorkerEvent) => void (e.type === 'evaluated' && evaluated.push(e.jobId));
        await inProcessWorker(redis, Q.tpe, { concurrency: 2, onEvent });
        const rowsPath = join(ws.scratch, 'rows.jsonl');
        const args = (order: string) => [redis.url, Q.tpe, ws.root, ws.scratch, rowsPath, `tpe:${order}`];
        const rowsOf = () =>
          readFileSync(rowsPath, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { iteration: number; status: string; score: number });
        // Copies ready in one order before the kill (candidate 0 first), in the other after it (candidate 1 first).
        const first = spawnTs(COORDINATOR, args('k0-first'), 'done');
        cleanups.push(() => first.kill());
        await until(
          'iteration 1 evaluated and iteration 2 running',
          () => evaluated.some((id) => id.startsWith('resumed.1.')) && ws.started().some((l) => l.startsWith('2 ')),
        );
        await first.kill('SIGKILL');
        expect(rowsOf().map((r) => r.iteration)).toEqual([0]);
        const jobsBefore = first.events
          .filter((e) => e.type === 'submitted' && !String(e.jobId).startsWith('resumed.0.'))
          .map((e) => e.jobId)
          .sort();
        expect(jobsBefore).toHaveLength(2);
        const second = spawnTs(COORDINATOR, args('k1-first'), 'done');
        cleanups.push(() => second.kill());
        const submitted = () =>
          second.events.filter((e) => e.type === 'submitted' && !String(e.jobId).startsWith('resumed.0.'));
        await until('the resumed coordinator submitted its batch', () => submitted().length === 2);
        expect(
          submitted()
            .map((e) => e.jobId)
            .sort(),
        ).toEqual(jobsBefore); // the same candidates: the same job ids
        expect(submitted().every((e) => e.existing === true)).toBe(true);
        ws.openGate();
        await second.ready;
        const rows = rowsOf();
        expect(rows.map((r) => r.iteration)).toEqual([0, 1, 2]);
        expect(rows[0]).toMatchObject({ status: 'baseline', score: 1 });
        expect(ws.started().filter((l) => l.startsWith('1 '))).toHaveLength(1); // the finished job was reused
        expect(ws.started().filter((l) => l.startsWith('2 '))).toHaveLength(1); // the running one was waited for
        expect(evaluated.filter((id) => !id.startsWith('resumed.0.')).sort()).toEqual(jobsBefore);
      },
    );
  },
);
