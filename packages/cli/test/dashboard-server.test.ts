// loop dashboard's server without a browser: the event stream sending a run again when a row is
// appended (through auto-iterate's own row writer), the diff and log endpoints' refusals, the Host
// check, and the `loop dashboard` command itself (spawned, serving, stopped by SIGINT with exit 0).
// dashboard-fixture.ts builds the folder of runs; dashboard-runs.test.ts tests the runs' views.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { startDashboard } from '../src/dashboard/server.js';
import { createRunsRoot, row, workspace } from './dashboard-fixture.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
let root: string;

beforeAll(() => {
  root = createRunsRoot();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** GET `path` with a chosen Host header. */
function get(port: number, path: string, host = `127.0.0.1:${port}`): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += String(d)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the dashboard server', () => {
  it(
    'sends a run again on its event stream when the loop appends a row; ' +
      'refuses other Hosts; the diff endpoint explains what it cannot show',
    async () => {
      const dashboard = await startDashboard({ root, pollMs: 60_000 }); // polls only when the test asks (refresh)
      try {
        expect(dashboard.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
        const runs = JSON.parse((await get(dashboard.port, '/api/runs')).body) as Array<{
          id: string;
          rows: unknown[];
        }>;
        expect(runs.find((r) => r.id === 'finished/results.tsv')?.rows).toHaveLength(3);
        expect((await get(dashboard.port, '/', 'evil.example:80')).status).toBe(403);
        expect((await get(dashboard.port, '/', `localhost:${dashboard.port}`)).status).toBe(200);
        const vega = await get(dashboard.port, '/vega.min.js');
        expect(vega.status).toBe(200);
        expect(vega.body.length).toBeGreaterThan(100_000);
        const noIteration = await get(dashboard.port, '/api/runs/finished/results.tsv/diff/7');
        expect(noIteration.status).toBe(400);
        expect(JSON.parse(noIteration.body).error).toMatch(/no iteration 7/);
        const snapshots = await get(
          dashboard.port,
          '/api/runs/pass/.aid/pipeline/autoresearch/task-1/results.tsv/diff/1',
        );
        expect(JSON.parse(snapshots.body).error).toMatch(/autoresearch pass keeps snapshots/);
        expect((await get(dashboard.port, '/api/runs/nope/diff/1')).status).toBe(404);

        // The event stream: every run on connect, then the run whose results.tsv grew.
        const controller = new AbortController();
        const res = await fetch(`${dashboard.url}events`, { signal: controller.signal });
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        let text = '';
        const until = async (re: RegExp) => {
          while (!re.test(text)) {
            const { value, done } = await reader.read();
            if (done) throw new Error(`stream ended before ${re}: ${text}`);
            text += value;
          }
        };
        await until(/"id":"pass\/\.aid[^\n]*\n\n/); // the last run's event, whole
        text = '';
        appendFileSync(join(root, 'finished', 'results.tsv'), row(3, 8, 'kept', 'x 1 -> 2'));
        await dashboard.refresh();
        await until(/\n\n/);
        expect(text).toMatch(/^event: run\ndata: \{"id":"finished\/results\.tsv"/);
        expect(text).toContain('"best":8');
        controller.abort();
      } finally {
        await dashboard.close();
      }
    },
  );

  it(
    'the log endpoint returns a kept iteration log (.loop/logs/<n>.log), 400 ' +
      'naming the folder for one not kept; a new kept log re-sends the run with ' +
      'the newest tailed (issue 32 item 16)',
    async () => {
      const dir = workspace(root, 'logs', [
        row(0, 10, 'baseline', 'baseline'),
        row(1, 11, 'reverted', 'x 0 -> 4'),
        row(2, null, 'crash', 'x 0 -> 7'),
      ]);
      mkdirSync(join(dir, '.loop', 'logs'));
      writeFileSync(join(dir, '.loop', 'logs', '1.log'), 'score: 11\n');
      const dashboard = await startDashboard({ root, pollMs: 60_000 });
      try {
        const first = dashboard.runs().find((r) => r.id === 'logs/results.tsv')!;
        expect(first.keptLogs).toEqual([1]);
        expect(first.logs.map((l) => l.name)).toEqual(['.loop/logs/1.log']);
        const one = await get(dashboard.port, '/api/runs/logs/results.tsv/log/1');
        expect(one.status).toBe(200);
        expect(JSON.parse(one.body)).toEqual({
          iteration: 1,
          path: join(dir, '.loop', 'logs', '1.log'),
          text: 'score: 11\n',
          truncated: false,
        });
        const missing = await get(dashboard.port, '/api/runs/logs/results.tsv/log/2');
        expect(missing.status).toBe(400);
        expect(JSON.parse(missing.body).error).toBe(
          `no log of iteration 2 in ${join(dir, '.loop', 'logs')}: it holds ` +
            `iterations 1 to 1 (the newest keepLogs logs are kept)`,
        );
        expect((await get(dashboard.port, '/api/runs/logs/results.tsv/log/x')).status).toBe(400);
        writeFileSync(join(dir, '.loop', 'logs', '2.log'), 'Error: boom\n');
        await dashboard.refresh();
        const after = dashboard.runs().find((r) => r.id === 'logs/results.tsv')!;
        expect(after.keptLogs).toEqual([1, 2]);
        expect(after.logs).toEqual([{ name: '.loop/logs/2.log', tail: 'Error: boom\n' }]);
      } finally {
        await dashboard.close();
      }
    },
  );

  it(
    'loop dashboard serves the folder on 127.0.0.1 until SIGINT, then exits ' +
      '0; a bad --port is a usage error (exit 2)',
    async () => {
      const sink = { write: () => true } as unknown as NodeJS.WritableStream;
      expect(
        await runCli(['dashboard', root, '--port', 'x'], { stdout: sink, stderr: sink, cwd: root, tty: false }),
      ).toBe(2);
      const child = spawn(
        process.execPath,
        ['--import', TSX, '--conditions=source', MAIN, 'dashboard', '.', '--port', '0'],
        { cwd: root, env: { ...process.env, CI: '1' } },
      );
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += String(d);
          const m = /dashboard (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script src="/vega.min.js"></script>');
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    },
    60_000,
  );
});
