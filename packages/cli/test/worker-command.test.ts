// `loop worker` as a real process (the CLI from its sources) on a real redis-server, and `loop
// status` listing it for a config with parallel.workers.
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runCliCaptured } from './fixtures/run-cli.js';
import { redisMissing, startRedis, uniqueQueue } from '../../workers-bullmq/test/redis-server.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const loop = (cwd: string, ...args: string[]) => runCliCaptured(cwd, args);

const missing = redisMissing();
describe.skipIf(missing !== undefined)(
  `loop worker and loop status (issue 15)${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it(
      'loop worker --redis URL --concurrency 2 connects as a BullMQ worker ' +
        '(one JSON ready line), loop status lists it for a config with ' +
        'parallel.workers, and SIGTERM stops it with exit code 0',
      async () => {
        const redis = await startRedis();
        cleanups.push(() => redis.stop());
        const queue = uniqueQueue('cli-worker');
        const workdir = mkdtempSync(join(tmpdir(), 'loop-worker-'));
        cleanups.push(() => rmSync(workdir, { recursive: true, force: true }));
        const child = spawn(
          process.execPath,
          [
            '--import',
            TSX,
            '--conditions=source',
            MAIN,
            'worker',
            '--redis',
            redis.url,
            '--concurrency',
            '2',
            '--queue',
            queue,
            '--workdir',
            workdir,
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        cleanups.push(() => void (child.exitCode === null && child.kill('SIGKILL')));
        let out = '';
        let err = '';
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        const ready = await new Promise<{ type: string; worker: string }>((resolve, reject) => {
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString();
            const line = out.split('\n').find((l) => l.includes('"ready"'));
            if (line) resolve(JSON.parse(line) as { type: string; worker: string });
          });
          child.once('exit', (code) => reject(new Error(`loop worker exited with ${code}: ${err}`)));
        });
        expect(ready.worker).toMatch(/^.+:\d+:\d+$/);

        const ws = mkdtempSync(join(tmpdir(), 'loop-status-workers-'));
        cleanups.push(() => rmSync(ws, { recursive: true, force: true }));
        writeFileSync(join(ws, 'config.json'), JSON.stringify({ x: 0 }));
        writeFileSync(join(ws, 'eval.mjs'), "console.log('score: 1');\n");
        execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: ws });
        await loop(ws, 'init');
        const file = join(ws, 'loop.config.yaml');
        const doc = parseDocument(readFileSync(file, 'utf8'));
        doc.setIn(['parallel'], { candidates: 2, workers: { redis: redis.url, queue } });
        writeFileSync(file, doc.toString());

        const text = await loop(ws, 'status', 'loop.config.yaml');
        expect(text.err).toBe('');
        expect(text.out).toContain(`workers (${queue} on ${redis.url}): 1 seen`);
        expect(text.out).toContain(ready.worker);
        const json = JSON.parse((await loop(ws, 'status', '--json')).out) as { workers: { seen: { name: string }[] } };
        expect(json.workers.seen.map((w) => w.name)).toContain(ready.worker);

        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      },
    );
  },
);
