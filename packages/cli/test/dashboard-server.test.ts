// loop dashboard's server without a browser: which folders are runs, what a run's view says
// (running while the workspace lock is held, interrupted, finished with the stop reason, a
// malformed results.tsv), the event stream sending a run again when a row is appended (through
// auto-iterate's own row writer), the diff endpoint's refusals, the Host check, and the
// `loop dashboard` command itself (spawned, serving, stopped by SIGINT with exit 0).
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AUTO_ITERATE_TSV_HEADER, formatAutoIterateRow } from '@loop/auto-iterate';
import { formatResultsRow, resultsHeader } from '@loop/autoresearch/results-tsv';
import { type IterationRecord } from '@loop/core';
import { acquireLock } from '@loop/core/files';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli.js';
import { discoverRuns } from '../src/dashboard/discover.js';
import { readRunView } from '../src/dashboard/run-view.js';
import { startDashboard } from '../src/dashboard/server.js';
import { lockPath } from '../src/workspace-status.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
let root: string;

const row = (
  iteration: number,
  score: number | null,
  status: IterationRecord['status'],
  description: string,
): string => {
  const candidateId = `c0ffee${iteration}`.padEnd(40, '0');
  return `${formatAutoIterateRow({ iteration, candidateId, score, status, description })}` + `\n`;
};

/** An auto-iterate workspace (a .loop/ folder and results.tsv as the loop writes them) with `rows` rows. */
function workspace(name: string, rows: string[], state?: object): string {
  const dir = join(root, name);
  mkdirSync(join(dir, '.loop'), { recursive: true });
  writeFileSync(join(dir, 'results.tsv'), `${AUTO_ITERATE_TSV_HEADER}\n${rows.join('')}`);
  if (state) writeFileSync(join(dir, '.loop', 'state.json'), JSON.stringify(state));
  return dir;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'loop-dashboard-server-'));
  workspace(
    'finished',
    [row(0, 10, 'baseline', 'baseline'), row(1, 9, 'kept', 'x 0 -> 1'), row(2, 12, 'reverted', 'x 1 -> 5')],
    { status: 'stopped', direction: 'minimize', stopReason: 'max-iterations', stopMessage: 'reached 2 iterations' },
  );
  workspace('group/interrupted', [row(0, 10, 'baseline', 'baseline')], { status: 'running', direction: 'minimize' });
  // An autoresearch pass (seed 002): its results.tsv under .aid/pipeline/autoresearch/<task>/.
  const header = resultsHeader('design');
  const ar = join(root, 'pass', '.aid', 'pipeline', 'autoresearch', 'task-1');
  mkdirSync(ar, { recursive: true });
  const cols = (c: string) => Object.fromEntries(header.slice(1, -3).map((h) => [h, h === 'composite' ? c : '1']));
  writeFileSync(
    join(ar, 'results.tsv'),
    [
      header.join('\t'),
      formatResultsRow(header, {
        iter: '0',
        columns: cols('6'),
        status: 'baseline',
        snapshot: '-',
        utc: '2026-12-01T00:00:00Z',
      }),
      formatResultsRow(header, {
        iter: '1',
        columns: cols('7'),
        status: 'kept',
        snapshot: '001-snap',
        utc: '2026-12-01T00:01:00Z',
      }),
    ].join('\n') + '\n',
  );
  // Not runs: node_modules, and a folder three levels down.
  mkdirSync(join(root, 'node_modules', 'x', '.loop'), { recursive: true });
  mkdirSync(join(root, 'a', 'b', 'c', '.loop'), { recursive: true });
  const bad = join(root, 'corrupt');
  mkdirSync(join(bad, '.loop'), { recursive: true });
  writeFileSync(join(bad, 'results.tsv'), 'when\twhat\nyesterday\tsomething\n');
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

describe('the runs of a folder', () => {
  it(
    'finds auto-iterate workspaces (.loop/ or results.tsv) and autoresearch ' +
      'tasks down to two levels, not node_modules or deeper folders',
    async () => {
      const runs = await discoverRuns(root);
      expect(runs.map((r) => r.id)).toEqual([
        'corrupt/results.tsv',
        'finished/results.tsv',
        'group/interrupted/results.tsv',
        'pass/.aid/pipeline/autoresearch/task-1/results.tsv',
      ]);
      expect(runs.map((r) => r.label)).toEqual(['corrupt', 'finished', 'group/interrupted', 'pass (task-1)']);
    },
  );

  it(
    'a run is finished with its stop reason, interrupted when state.json ' +
      'says running but nobody holds the lock, running while the lock is held ' +
      "(auto-iterate's and an autoresearch pass's)",
    async () => {
      const runs = await discoverRuns(root);
      const finished = await readRunView(runs[1]!);
      expect(finished).toMatchObject({
        phase: 'stopped',
        stopReason: 'max-iterations',
        stopMessage: 'reached 2 iterations',
        best: 9,
        direction: 'minimize',
        form: 'auto-iterate',
      });
      expect(finished.counts).toMatchObject({ experiments: 2, keep: 1, discard: 1 });
      expect(finished.spec).toBeDefined();
      const interrupted = runs[2]!;
      expect((await readRunView(interrupted)).phase).toBe('interrupted');
      const lock = await acquireLock({ path: lockPath(interrupted.dir) });
      try {
        expect(await readRunView(interrupted)).toMatchObject({ phase: 'running', locked: true });
      } finally {
        await lock.release();
      }
      const pass = await readRunView(runs[3]!);
      expect(pass).toMatchObject({
        form: 'autoresearch',
        metric: 'composite',
        direction: 'maximize',
        best: 7,
        phase: 'idle',
      });
      // An autoresearch pass holds <task folder>/pass (run-pass.ts).
      const passLock = await acquireLock({ path: runs[3]!.lock });
      try {
        expect(runs[3]!.lock).toBe(join(root, 'pass', '.aid', 'pipeline', 'autoresearch', 'task-1', 'pass'));
        expect((await readRunView(runs[3]!)).phase).toBe('running');
      } finally {
        await passLock.release();
      }
    },
  );

  it('a malformed results.tsv is shown as the problem, naming the file, with no plot', async () => {
    const view = await readRunView((await discoverRuns(root))[0]!);
    expect(view.problem).toMatch(/corrupt\/results\.tsv:1: not a results\.tsv of a known form/);
    expect(view.spec).toBeUndefined();
  });
});

describe('the curves of a run (issue 27)', () => {
  it(
    'a run whose rows carry intermediate reports gets the curves plot (kept, ' +
      'discarded, pruned); one without gets none',
    async () => {
      const dir = workspace(
        'curves',
        [
          row(0, 3, 'baseline', 'baseline'),
          row(1, 3.4, 'reverted', 'lr up (pruned at step 200: 3.4 vs incumbent 3.1)'),
        ],
        { status: 'stopped', direction: 'minimize' },
      );
      const reports = (values: number[]) => values.map((value, i) => ({ step: (i + 1) * 100, value }));
      writeFileSync(
        join(dir, '.loop', 'records.jsonl'),
        [
          JSON.stringify({ iteration: 0, data: { reports: reports([3.5, 3.1, 3]) } }),
          JSON.stringify({
            iteration: 1,
            data: {
              reports: reports([3.6, 3.4]),
              pruned: { step: 200, value: 3.4, reason: 'r', pruner: 'incumbent-curve' },
            },
          }),
        ].join('\n'),
      );
      const runs = await discoverRuns(root);
      const view = await readRunView(runs.find((r) => r.dir === dir)!);
      const values =
        (view.curves?.data as { name: string; values?: { kind: string }[] }[] | undefined)?.find(
          (d) => d.name === 'points',
        )?.values ?? [];
      expect(new Set(values.map((v) => v.kind))).toEqual(new Set(['kept', 'pruned']));
      const plain = await readRunView(runs.find((r) => r.dir.endsWith('finished'))!);
      expect(plain.curves).toBeUndefined();
      rmSync(dir, { recursive: true, force: true });
    },
  );
});

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
      const dir = workspace('logs', [
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
