// Shared set-up of the fault tests (faults-*.test.ts): queues, the coordinator script, a Redis server and a workspace
// per test.
import { fileURLToPath } from 'node:url';
import { createRegexScorer } from '@loop/core';
import { pidsWithEnv } from '@loop/internal-test-utils';
import { makeWorkspace, until, type Workspace } from './fixture.js';
import { cleanups } from './helpers.js';
import { startRedis, uniqueQueue } from './redis-server.js';

export const scorer = createRegexScorer({ pattern: '^score:', direction: 'maximize' });
export const never = new AbortController().signal;
export const Q = {
  kill: uniqueQueue('kill'),
  refuse: uniqueQueue('refuse'),
  timeout: uniqueQueue('timeout'),
  restart: uniqueQueue('restart'),
  resume: uniqueQueue('resume'),
  orphan: uniqueQueue('orphan'),
  coordinator: uniqueQueue('coordinator'),
  tpe: uniqueQueue('tpe-resume'),
};
export const COORDINATOR = fileURLToPath(new URL('./coordinator.ts', import.meta.url));

/** Starts a Redis server and makes a workspace, both cleaned up after the test. */
export async function setup(params = '1') {
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const ws = makeWorkspace(params);
  cleanups.push(() => ws.cleanup());
  return { redis, ws };
}

/** Waits until no process carrying the workspace's marker is left (an orphan finishing its run). */
export const noneLeft = (ws: Workspace) =>
  until('no evaluated process left', () => pidsWithEnv(ws.marker).length === 0);
