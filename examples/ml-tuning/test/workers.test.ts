// The demo with two `loop worker` processes on this machine (issue 15's Done-when): each worker is
// a real process with its own workdir (its own clone of the coordinator's repository), on a real
// redis-server started by the test on a free port (or CI's LOOP_REDIS_URL).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  redisMissing,
  startRedis,
  uniqueQueue,
  type TestRedis,
} from '../../../packages/workers-bullmq/test/redis-server.js';
import { EXAMPLE_DIR, runDemo } from '../src/demo.js';
import { expectRunAgreement } from './agreement.js';

const REPO = resolve(EXAMPLE_DIR, '..', '..');
const missing = redisMissing();
const parent = mkdtempSync(join(tmpdir(), 'loop-demo-workers-'));
const workers: ChildProcess[] = [];
/** Each worker's stdout (one JSON line per event). */
const outputs: string[] = [];
let redis: TestRedis | undefined;

afterAll(async () => {
  // SIGTERM: a worker stops taking jobs and exits once its running ones finished (none by now).
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((done) =>
          w.exitCode !== null || w.signalCode !== null ? done() : (w.once('exit', () => done()), w.kill('SIGTERM')),
        ),
    ),
  );
  await redis?.stop();
  rmSync(parent, { recursive: true, force: true });
});

/** Starts `loop worker` (the CLI from source) in its own process and resolves once it prints its ready line. */
function startWorker(url: string, queue: string, workdir: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=source',
      'packages/cli/src/main.ts',
      'worker',
      '--redis',
      url,
      '--queue',
      queue,
      '--workdir',
      workdir,
      '--link',
      `node_modules=${join(EXAMPLE_DIR, 'node_modules')}`,
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  workers.push(child);
  const slot = outputs.push('') - 1;
  return new Promise((done, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      outputs[slot] += chunk.toString();
      if (out.includes('"type":"ready"')) done(child);
    });
    child.stderr!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    child.once('exit', (code) => fail(new Error(`loop worker exited with ${code} before it was ready: ${out}`)));
  });
}

describe.skipIf(missing !== undefined)(
  `ml-tuning demo on two loop worker processes${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it(
      '--workers URL --parallel 2: every training runs on a worker in its own ' +
        'clone; results.tsv and the git history agree as in a local run (winner ' +
        'on the branch, the other under refs/loop/discarded/<n>)',
      async () => {
        redis = await startRedis();
        const queue = uniqueQueue('ml-demo');
        const workdirs = [join(parent, 'worker-a'), join(parent, 'worker-b')];
        await Promise.all(workdirs.map((w) => startWorker(redis!.url, queue, w)));
        const out = join(parent, 'coordinator');
        const lines: string[] = [];
        const { summary, branch } = await runDemo({
          iterations: 2,
          steps: 100,
          budgetS: 2,
          seed: 5,
          parallel: 2,
          workers: redis.url,
          queue,
          out,
          resume: false,
          print: (l) => lines.push(l),
        });
        expect(summary.iterations).toBe(2);
        expectRunAgreement(out, branch, { iterations: 2, candidates: 2 });
        expect(lines.join('\n')).toContain(`loop worker --redis ${redis.url} --queue ${queue}`);
        // Every training (the baseline and the two candidates) was evaluated by a worker process.
        const evaluated = outputs.map((o) => o.split('\n').filter((l) => l.includes('"type":"evaluated"')).length);
        expect(evaluated.reduce((a, b) => a + b, 0)).toBe(3);
        // the log's end came back from the worker
        expect(readFileSync(join(out, 'run.log'), 'utf8')).toMatch(/^val_bpc: \d/m);
        // Each training's log, sent back by its worker, is kept on the coordinator (issue 32 item 16).
        expect(readdirSync(join(out, '.loop', 'logs')).sort()).toEqual(['0.log', '1.log', '2.log']);
        for (const n of [0, 1, 2])
          expect(readFileSync(join(out, '.loop', 'logs', `${n}.log`), 'utf8')).toMatch(/^val_bpc: \d/m);
        // Each worker made its own clone of the coordinator's repository under its workdir.
        for (const w of workdirs) expect(readdirSync(w).length).toBeGreaterThan(0);
      },
    );
  },
);
