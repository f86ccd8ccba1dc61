import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from './fixture.js';
import { cleanups, inProcessWorker, remoteLoop, runCleanups } from './helpers.js';
import { redisMissing, startRedis, uniqueQueue } from './redis-server.js';

const missing = redisMissing();
const q1 = uniqueQueue('q1');
afterEach(runCleanups);

describe.skipIf(missing !== undefined)(
  `a loop whose candidates run on BullMQ workers${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it(
      'K = 2 candidates per batch run on two workers; one row each; the winner ' +
        'is committed on the coordinator and its params are what the worker ' +
        'scored',
      async () => {
        const redis = await startRedis();
        cleanups.push(() => redis.stop());
        const ws = makeWorkspace('1');
        cleanups.push(() => ws.cleanup());
        const a = await inProcessWorker(redis, q1);
        const b = await inProcessWorker(redis, q1);
        const { loop, results, queue } = await remoteLoop(redis, ws, {
          queue: q1,
          candidates: 2,
          iterations: 4,
          runId: 'basic',
        });
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
        expect(
          ws
            .started()
            .map((l) => l.split(' ')[0])
            .sort(),
        ).toEqual(['0', '1', '2', '3', '4']);
      },
    );
  },
);
