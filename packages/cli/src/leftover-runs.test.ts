import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeLeftovers, findLeftoverRuns } from './leftover-runs.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-leftovers-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('findLeftoverRuns', () => {
  it.skipIf(process.platform !== 'linux')(
    "finds the live processes carrying a pid file's token and touches " +
      'nothing; missing, torn and ended runs are skipped',
    async () => {
      const token = 'feed0123face4567';
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, LOOP_RUN_TOKEN: token },
      });
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      await new Promise<void>((resolve) => child.on('spawn', () => resolve()));
      try {
        writeFileSync(join(dir, 'run.pgid'), JSON.stringify({ pgid: child.pid, token }));
        writeFileSync(join(dir, 'torn.pgid'), '{"pgid": 1');
        writeFileSync(join(dir, 'ended.pgid'), JSON.stringify({ pgid: 999_999, token: '0000ffff0000ffff' }));
        const files = ['run.pgid', 'torn.pgid', 'ended.pgid', 'missing.pgid'].map((f) => join(dir, f));
        const runs = findLeftoverRuns(files);
        expect(runs).toEqual([{ pidFile: files[0], pgid: child.pid, pids: [child.pid] }]);
        expect(describeLeftovers(runs)).toBe(`ending 1 leftover process of the interrupted run (pid ${child.pid})`);
        expect(child.exitCode).toBeNull(); // only read
      } finally {
        process.kill(-child.pid!, 'SIGKILL');
        await exited;
      }
    },
  );

  it('describeLeftovers counts distinct pids across runs, and says nothing for none', () => {
    expect(describeLeftovers([])).toBeUndefined();
    expect(
      describeLeftovers([
        { pidFile: 'a', pgid: 10, pids: [12, 10] },
        { pidFile: 'b', pgid: 20, pids: [20, 12] },
      ]),
    ).toBe('ending 3 leftover processes of the interrupted run (pids 10, 12, 20)');
  });
});
