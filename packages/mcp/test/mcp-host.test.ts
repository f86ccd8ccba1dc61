// The server as a host of the loop (ask/tell): the agent's edit is evaluated in place, what an
// agent needs after a crash, ids and stops as they are, edits outside the targets, and a server
// killed at the worst moments. The SDK's Client drives the real `loop mcp` (see fixture.ts).
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { agentChanges, clearEdit, holdEdit, HELD_EDIT_REF } from '../src/held-edit.js';
import { callOn, fileAppears, gitIn, makeWorkspace, startLoopRun, startServer } from './fixture.js';

const HEX40 = /^[0-9a-f]{40}$/;
let ws: string;
let clients: Client[] = [];
const git = (...args: string[]) => gitIn(ws)(...args);
const read = (file: string) => readFileSync(join(ws, file), 'utf8');

async function serve(): Promise<{
  client: Client;
  pid: number;
  call: <T = Record<string, unknown>>(name: string, args?: Record<string, unknown>) => Promise<T>;
}> {
  const { client, pid } = await startServer(ws);
  clients.push(client);
  return { client, pid, call: (name, args = {}) => callOn(client, name, args) };
}

/** SIGKILLs the server `pid` and waits until it is gone. */
async function killServer(client: Client, pid: number): Promise<void> {
  const transport = client.transport as unknown as {
    _process?: NodeJS.EventEmitter & { exitCode: number | null; signalCode: string | null };
  };
  const child = transport._process;
  const exited =
    child && child.exitCode === null && child.signalCode === null ? once(child, 'exit') : Promise.resolve();
  process.kill(pid, 'SIGKILL');
  await exited;
}

afterEach(async () => {
  for (const client of clients) await client.close().catch(() => {});
  clients = [];
  rmSync(ws, { recursive: true, force: true });
});

type Result = {
  evaluated: boolean;
  decision: string;
  iteration: number;
  score: number | null;
  commit: string;
  best: number;
  bestId: string;
  stop?: { reason: string };
  reason?: string;
  logTail?: string;
  log?: string;
  repairs?: string[];
};

describe('loop mcp as a host: ids and stops as they are', () => {
  it(
    'gives bestId as 40 hex on every result (first, later, after a restart) ' +
      'and reports stop only on the result after which the loop stopped',
    async () => {
      ws = makeWorkspace();
      writeFileSync(
        join(ws, 'loop.config.yaml'),
        read('loop.config.yaml').replace('maxIterations: 0', 'maxIterations: 3'),
      );
      git('commit', '-q', '-am', 'three iterations');
      const first = await serve();
      writeFileSync(join(ws, 'config.json'), '{"x": 2}\n');
      const kept = await first.call<Result>('loop_evaluate', { description: 'x 5 -> 2' });
      expect(kept).toMatchObject({ decision: 'keep', best: 2 });
      expect(kept.bestId).toMatch(HEX40);
      expect(kept.bestId).toBe(kept.commit);
      expect(kept).not.toHaveProperty('stop');
      writeFileSync(join(ws, 'config.json'), '{"x": 7}\n');
      const discarded = await first.call<Result>('loop_evaluate', { description: 'x 2 -> 7' });
      expect(discarded).toMatchObject({ decision: 'discard', best: 2, bestId: kept.commit });
      expect(discarded).not.toHaveProperty('stop');
      await first.client.close();

      // A new server resumes the run: the best comes from the rows (short ids there), still given as 40 hex.
      const second = await serve();
      writeFileSync(join(ws, 'config.json'), '{"x": 9}\n');
      const last = await second.call<Result>('loop_evaluate', { description: 'x 2 -> 9' });
      expect(last).toMatchObject({
        decision: 'discard',
        iteration: 3,
        best: 2,
        bestId: kept.commit,
        stop: { reason: 'max-iterations' },
      });
      expect(git('rev-parse', 'HEAD')).toBe(kept.commit);
    },
  );
});

describe('loop mcp as a host: evaluations and configured steps interleaved', () => {
  it(
    'loop_run_iteration after an evaluation closes the trial opened for the ' +
      'next edit (no row) and steps with the configured proposer; the next ' +
      'evaluation goes on from there',
    async () => {
      ws = makeWorkspace();
      const { call } = await serve();
      writeFileSync(join(ws, 'config.json'), '{"x": 4}\n');
      expect(await call<Result>('loop_evaluate', { description: 'x 5 -> 4' })).toMatchObject({
        decision: 'keep',
        iteration: 1,
      });
      const step = await call<Result>('loop_run_iteration');
      expect(step).toMatchObject({ evaluated: true, iteration: 2 });
      expect(step).not.toHaveProperty('stop');
      expect(git('status', '--porcelain')).toBe('');
      writeFileSync(join(ws, 'config.json'), '{"x": 0}\n');
      const next = await call<Result>('loop_evaluate', { description: 'x -> 0' });
      expect(next).toMatchObject({ decision: 'keep', iteration: 3, score: 0, best: 0 });
      expect(next.bestId).toBe(git('rev-parse', 'HEAD'));
      const rows = await call<{ iteration: number; description: string }[]>('loop_rows');
      expect(rows.map((r) => r.iteration)).toEqual([0, 1, 2, 3]);
    },
  );
});

describe('loop mcp as a host: what the agent needs after a crash', () => {
  it("returns the crash reason and the end of the run log; loop_log reads any iteration's whole log", async () => {
    ws = makeWorkspace();
    const { call } = await serve();
    writeFileSync(join(ws, 'config.json'), '{"x": ');
    const crash = await call<Result>('loop_evaluate', { description: 'broken json' });
    expect(crash).toMatchObject({
      decision: 'crash',
      iteration: 1,
      score: null,
      reason: 'exited with code 1',
      log: '.loop/logs/1.log',
    });
    expect(crash.logTail).toContain('eval: config.json is not JSON: "{\\"x\\": "');
    expect(read('config.json')).toBe('{"x": 5}\n');

    const log = await call<{ iteration: number; text: string; truncated: boolean }>('loop_log', { iteration: 1 });
    expect(log).toMatchObject({ iteration: 1, truncated: false });
    expect(log.text).toContain('reading config.json');
    expect(log.text).toContain('eval: config.json is not JSON');
    expect((await call<{ iteration: number }>('loop_log')).iteration).toBe(1); // default: the last row
    expect((await call<{ text: string }>('loop_log', { iteration: 0 })).text).toContain('score: 5');
    await expect(call('loop_log', { iteration: 9 })).rejects.toThrow(/no log of iteration 9/);
  });

  it('returns the reason a failing configured proposer gave, not a bare crash', async () => {
    ws = makeWorkspace();
    const agent =
      'proposer:\n  type: agent\n  command: "echo the agent has no credits ' +
      '>&2; exit 3"\n  goal: lower the score\n  sandbox: none\n';
    writeFileSync(join(ws, 'loop.config.yaml'), read('loop.config.yaml').replace(/proposer:[\s\S]*$/, agent));
    git('commit', '-q', '-am', 'agent proposer');
    const { call } = await serve();
    const step = await call<Result>('loop_run_iteration');
    expect(step.decision).toBe('crash');
    expect(step.reason).toMatch(/exited with code 3/);
    expect(step.reason).toContain('the agent has no credits');
  });
});

describe('loop mcp as a host: a workspace another loop holds', () => {
  it('loop_evaluate on its clean tree says LOCK_HELD, not NO_EDIT, and touches nothing', async () => {
    ws = makeWorkspace();
    const mark = `${ws}-started`;
    writeFileSync(join(ws, 'loop.config.yaml'), `${read('loop.config.yaml')}env: { MARK: ${JSON.stringify(mark)} }\n`);
    writeFileSync(join(ws, 'config.json'), '{"x": 5, "slow": true}\n');
    git('commit', '-q', '-am', 'a baseline that never ends');
    const run = startLoopRun(ws);
    try {
      await fileAppears(mark); // the run holds the lock and its baseline is running
      const head = git('rev-parse', 'HEAD');
      const { call } = await serve();
      await expect(call('loop_evaluate', { description: 'nothing edited' })).rejects.toThrow(
        /\[LOCK_HELD\][\s\S]*nothing was touched/,
      );
      expect(git('rev-parse', 'HEAD')).toBe(head);
      expect(git('status', '--porcelain')).toBe('');
    } finally {
      run.kill('SIGTERM');
      if (run.exitCode === null) await once(run, 'exit');
      rmSync(mark, { force: true });
    }
  });
});

describe('loop mcp as a host: an edit outside the targets', () => {
  it(
    'is refused with nothing touched, whether or not a trial is open; the ' + 'edit of the targets is then evaluated',
    async () => {
      ws = makeWorkspace();
      const { call } = await serve();
      const evalBytes = read('eval.mjs');
      writeFileSync(join(ws, 'config.json'), '{"x": 3}\n');
      writeFileSync(join(ws, 'eval.mjs'), `${evalBytes}// hacked\n`);
      writeFileSync(join(ws, 'notes.txt'), 'new\n');
      const head = git('rev-parse', 'HEAD');
      await expect(call('loop_evaluate', { description: 'with a harness edit' })).rejects.toThrow(
        /\[OUTSIDE_TARGETS\][\s\S]*eval\.mjs, notes\.txt/,
      );
      expect([read('config.json'), read('eval.mjs'), read('notes.txt')]).toEqual([
        '{"x": 3}\n',
        `${evalBytes}// hacked\n`,
        'new\n',
      ]);
      expect(git('rev-parse', 'HEAD')).toBe(head);
      expect(git('branch', '--list', 'auto-iterate/*')).toBe('');
      expect(await call('loop_rows')).toEqual([]);

      writeFileSync(join(ws, 'eval.mjs'), evalBytes);
      rmSync(join(ws, 'notes.txt'));
      expect(await call<Result>('loop_evaluate', { description: 'x 5 -> 3' })).toMatchObject({
        decision: 'keep',
        score: 3,
      });

      // Now a trial is open (asked for after the evaluation): the same refusal, the trial still open.
      const kept = git('rev-parse', 'HEAD');
      writeFileSync(join(ws, 'config.json'), '{"x": 1}\n');
      writeFileSync(join(ws, 'eval.mjs'), `${evalBytes}// hacked\n`);
      await expect(call('loop_evaluate', { description: 'again' })).rejects.toThrow(
        /\[OUTSIDE_TARGETS\][\s\S]*eval\.mjs/,
      );
      expect([read('config.json'), read('eval.mjs')]).toEqual(['{"x": 1}\n', `${evalBytes}// hacked\n`]);
      expect(git('rev-parse', 'HEAD')).toBe(kept);
      expect((await call<unknown[]>('loop_rows')).length).toBe(2);
      writeFileSync(join(ws, 'eval.mjs'), evalBytes);
      expect(await call<Result>('loop_evaluate', { description: 'x 3 -> 1' })).toMatchObject({
        decision: 'keep',
        iteration: 2,
        score: 1,
      });
    },
  );
});

describe("loop mcp as a host: a server killed never loses the agent's edit", () => {
  it(
    "SIGKILL between the agent's edit (made with a trial open) and its " +
      'loop_evaluate: the restarted server still has the edit and evaluates it',
    async () => {
      ws = makeWorkspace();
      const first = await serve();
      writeFileSync(join(ws, 'config.json'), '{"x": 2}\n');
      const kept = await first.call<Result>('loop_evaluate', { description: 'x 5 -> 2' });
      expect(kept.decision).toBe('keep');
      writeFileSync(join(ws, 'config.json'), '{"x": 1, "note": "made with the trial open"}\n');
      await killServer(first.client, first.pid);
      expect(read('config.json')).toBe('{"x": 1, "note": "made with the trial open"}\n');

      const second = await serve();
      expect(read('config.json')).toBe('{"x": 1, "note": "made with the trial open"}\n');
      const next = await second.call<Result>('loop_evaluate', { description: 'x 2 -> 1' });
      expect(next).toMatchObject({ decision: 'keep', iteration: 2, score: 1, best: 1 });
      expect(next.bestId).toMatch(HEX40);
      expect(git('rev-parse', 'HEAD')).toBe(next.commit);
      expect(git('show', `${next.commit}:config.json`)).toBe('{"x": 1, "note": "made with the trial open"}');
      expect(git('status', '--porcelain')).toBe('');
      expect((await second.call<{ iteration: number }[]>('loop_rows')).map((r) => r.iteration)).toEqual([0, 1, 2]);
    },
  );

  it(
    'a server killed while it held the edit aside (no trial was open) leaves ' +
      'it in git: the next server puts it back, says so, and evaluates it',
    async () => {
      ws = makeWorkspace();
      writeFileSync(join(ws, 'config.json'), '{"x": 4}\n');
      // What the first evaluation of a server does before it opens a trial, then dies: held, tree cleared.
      const changes = await agentChanges(ws);
      await holdEdit(ws, changes);
      await clearEdit(ws, changes);
      expect(read('config.json')).toBe('{"x": 5}\n');
      expect(git('rev-parse', HELD_EDIT_REF)).toMatch(HEX40);

      const { call } = await serve();
      const result = await call<Result>('loop_evaluate', { description: 'x 5 -> 4' });
      expect(result).toMatchObject({ decision: 'keep', iteration: 1, score: 4 });
      expect(result.repairs?.join('\n')).toContain(`held in ${HELD_EDIT_REF} (config.json) was put back`);
      expect(git('show', `${result.commit}:config.json`)).toBe('{"x": 4}');
      expect(git('for-each-ref', 'refs/loop/mcp')).toBe('');
    },
  );
});

describe('loop mcp: candidates in flight when the client goes', () => {
  it.each(['stdin ends', 'SIGTERM'] as const)(
    'a server whose client goes (%s) stops the loop: a candidate still running on the async ' +
      'schedule has its run killed and its working copy removed, and leaves no row',
    async (how) => {
      ws = makeWorkspace();
      const mark = `${ws}-hung`;
      // Iteration 2's run announces its pid and folder in $MARK and never ends on its own.
      writeFileSync(
        join(ws, 'eval.mjs'),
        `import { readFileSync, writeFileSync } from 'node:fs';
if (process.env.LOOP_ITERATION === '2') {
  writeFileSync(process.env.MARK, JSON.stringify({ pid: process.pid, cwd: process.cwd() }));
  setInterval(() => {}, 1000);
} else console.log('score: ' + JSON.parse(readFileSync('config.json', 'utf8')).x);
`,
      );
      writeFileSync(
        join(ws, 'loop.config.yaml'),
        `${read('loop.config.yaml')}env: { MARK: ${JSON.stringify(mark)} }\n` +
          'parallel: { candidates: 2, schedule: async }\n',
      );
      git('commit', '-q', '-am', 'iteration 2 hangs; async');
      const { client, call } = await serve();
      const server = (client.transport as unknown as { _process: ChildProcess })._process;
      const exited = once(server, 'exit');
      // The baseline, then iteration 1's row; iteration 2 is in flight when the step returns.
      await call('loop_run_iteration');
      await fileAppears(mark);
      const hung = JSON.parse(readFileSync(mark, 'utf8')) as { pid: number; cwd: string };
      expect(isAlive(hung.pid)).toBe(true);
      // The client goes: stdin ends (the SDK's client sends SIGTERM 2 s later), or SIGTERM at once. The
      // lock's signal-exit hook re-raised a SIGTERM no other listener held, which killed the server first.
      if (how === 'SIGTERM') server.kill('SIGTERM');
      else server.stdin!.end();
      expect(await exited).toEqual([expect.any(Number), null]); // it exited, not killed by the signal
      // The server stopped the loop before it exited: the run is gone (a zombie at most until reaped).
      expect(isAlive(hung.pid)).toBe(false);
      expect(existsSync(hung.cwd)).toBe(false);
      // Rows are recorded in iteration order: the baseline and iteration 1; the hung iteration 2 has none.
      expect(read('results.tsv').trim().split('\n')).toHaveLength(1 + 2);
      expect(git('status', '--porcelain')).toBe('');
      rmSync(mark, { force: true });
    },
  );
});

/** Whether `pid` is a running process (a zombie counts as gone). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !/^\d+ \(.*\) Z/.test(stat);
}
