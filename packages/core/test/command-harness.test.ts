import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isAlive } from '@loop/internal-test-utils';
import { createCommandHarness, createRegexScorer } from '../src/index.js';
import { killOrphanGroups, runInGroup } from '../src/process.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loop-harness-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const signal = () => new AbortController().signal;

describe('command harness (real processes)', () => {
  it('runs the command in the workspace with output in the log file and returns exit code and duration', async () => {
    await writeFile(join(dir, 'train.sh'), 'echo "step 1"\necho "oops" >&2\necho "val_bpb: 1.25"\nexit 3\n');
    const harness = createCommandHarness({ command: 'sh train.sh', cwd: dir, timeBudgetMs: 5000 });
    const run = await harness.run({ iteration: 4, signal: signal() });
    expect(run).toMatchObject({ exitCode: 3, signal: null, timedOut: false, logPath: join(dir, 'run.log') });
    expect(run.durationMs).toBeGreaterThan(0);
    expect(await readFile(join(dir, 'run.log'), 'utf8')).toBe('step 1\noops\nval_bpb: 1.25\n');
  });

  it('passes the time budget and iteration to the command as environment variables', async () => {
    const harness = createCommandHarness({
      command: 'echo "$LOOP_TIME_BUDGET_S $LOOP_TIME_BUDGET_MS $LOOP_ITERATION"',
      cwd: dir,
      timeBudgetMs: 2500,
    });
    await harness.run({ iteration: 7, signal: signal() });
    expect(await readFile(join(dir, 'run.log'), 'utf8')).toBe('2.5 2500 7\n');
  });

  it('passes the seed and the repeat as LOOP_SEED and LOOP_REPEAT', async () => {
    const harness = createCommandHarness({ command: 'echo "$LOOP_SEED $LOOP_REPEAT"', cwd: dir });
    await harness.run({ iteration: 3, signal: signal(), seed: 1234, repeat: 2 });
    expect(await readFile(join(dir, 'run.log'), 'utf8')).toBe('1234 2\n');
  });

  it('truncates the log at each run (seed 003: > run.log)', async () => {
    const harness = createCommandHarness({ command: 'echo "$LOOP_ITERATION"', cwd: dir });
    await harness.run({ iteration: 1, signal: signal() });
    await harness.run({ iteration: 2, signal: signal() });
    expect(await readFile(join(dir, 'run.log'), 'utf8')).toBe('2\n');
  });

  it('a timed-out run kills the whole process tree, leaving no grandchild behind', async () => {
    // The grandchild ignores SIGTERM and holds the log open: only a group SIGKILL ends it.
    const script = "trap '' TERM\nsleep 60 &\necho $! > grandchild.pid\nwait\n";
    await writeFile(join(dir, 'hang.sh'), script);
    const harness = createCommandHarness({
      command: 'sh hang.sh',
      cwd: dir,
      timeBudgetMs: 200,
      killTimeoutMs: 400,
      graceMs: 200,
    });
    const run = await harness.run({ iteration: 1, signal: signal() });
    expect(run.timedOut).toBe(true);
    expect(run.exitCode).toBeNull();
    const pid = Number(await readFile(join(dir, 'grandchild.pid'), 'utf8'));
    // SIGKILL is delivered asynchronously: wait (bounded) for the kernel to end the process.
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 5000, interval: 20 });
  });

  it('a background grandchild left by a finished run is killed too', async () => {
    await writeFile(join(dir, 'leak.sh'), 'sleep 60 &\necho $! > grandchild.pid\necho "val_bpb: 1"\n');
    const harness = createCommandHarness({ command: 'sh leak.sh', cwd: dir });
    const run = await harness.run({ iteration: 1, signal: signal() });
    expect(run.exitCode).toBe(0);
    const pid = Number(await readFile(join(dir, 'grandchild.pid'), 'utf8'));
    // SIGKILL is delivered asynchronously: wait (bounded) for the kernel to end the process.
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 5000, interval: 20 });
  });

  it('an abort kills the run and marks it aborted', async () => {
    const controller = new AbortController();
    await writeFile(join(dir, 'slow.sh'), 'echo started > started.txt\nsleep 60\n');
    const harness = createCommandHarness({ command: 'sh slow.sh', cwd: dir, timeBudgetMs: 60_000 });
    const pending = harness.run({ iteration: 1, signal: controller.signal });
    controller.abort();
    const run = await pending;
    expect(run.error).toBe('aborted');
    expect(run.timedOut).toBe(false);
  });

  it('a timeout is scored as a crash with the log tail attached', async () => {
    await writeFile(join(dir, 'hang.sh'), 'echo "loading"\nsleep 60\n');
    const harness = createCommandHarness({
      command: 'sh hang.sh',
      cwd: dir,
      timeBudgetMs: 100,
      killTimeoutMs: 300,
      graceMs: 100,
    });
    const result = await createRegexScorer({ pattern: '^val_bpb:\\s*(\\S+)', direction: 'minimize' }).score(
      await harness.run({ iteration: 1, signal: signal() }),
    );
    expect(result).toMatchObject({ ok: false, reason: 'timeout', logTail: 'loading' });
  });

  it('the fingerprint changes when a fingerprinted file changes', async () => {
    await writeFile(join(dir, 'prepare.mjs'), 'export const a = 1;\n');
    const harness = createCommandHarness({ command: 'node train.mjs', cwd: dir, fingerprintFiles: ['prepare.mjs'] });
    const before = await harness.fingerprint!();
    expect(await harness.fingerprint!()).toBe(before);
    await writeFile(join(dir, 'prepare.mjs'), 'export const a = 2;\n');
    expect(await harness.fingerprint!()).not.toBe(before);
  });

  it('invalid options fail with CONFIG_INVALID naming the field', () => {
    expect(() => createCommandHarness({ command: '', cwd: dir })).toThrow(/command: command must not be empty/);
    expect(() => createCommandHarness({ command: 'x', cwd: 'relative' })).toThrow(/cwd: cwd must be an absolute path/);
    expect(() => createCommandHarness({ command: 'x', cwd: dir, timeBudgetMs: 1000, killTimeoutMs: 10 })).toThrow(
      /killTimeoutMs/,
    );
  });
});

describe('command harness pid file (orphaned runs of a killed controller)', () => {
  /** Starts `sleep 60` as the leader of its own process group, as an earlier run would have. */
  function orphan(env: Record<string, string>): number {
    const child = spawn('/bin/sh', ['-c', 'exec sleep 60'], {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, ...env },
    });
    child.unref();
    return child.pid!;
  }

  it(
    'while the command runs the pid file names its process group and token; ' + 'it is removed when the run ends',
    async () => {
      const pidFile = join(dir, 'trigger.pgid');
      const harness = createCommandHarness({
        command: 'cat trigger.pgid; echo "token=$LOOP_RUN_TOKEN"',
        cwd: dir,
        pidFile,
      });
      await harness.run({ iteration: 1, signal: signal() });
      const log = await readFile(join(dir, 'run.log'), 'utf8');
      const written = JSON.parse(log.split('\n')[0]!) as { pgid: number; token: string };
      expect(log).toContain(`token=${written.token}`);
      expect(written.pgid).toBeGreaterThan(1);
      await expect(readFile(pidFile, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );

  it(
    'a run that finds the pid file of a still-running earlier group carrying ' +
      'its token kills that group before it starts',
    async () => {
      const pidFile = join(dir, 'trigger.pgid');
      const pgid = orphan({ LOOP_RUN_TOKEN: 'abc123' });
      await writeFile(pidFile, JSON.stringify({ pgid, token: 'abc123' }));
      const harness = createCommandHarness({ command: 'echo ok', cwd: dir, pidFile, graceMs: 200 });
      await harness.run({ iteration: 1, signal: signal() });
      await vi.waitFor(() => expect(isAlive(pgid)).toBe(false), { timeout: 5000, interval: 20 });
    },
  );

  it('a pid file naming a group that does not carry its token (a reused pid) is never killed', async () => {
    const pidFile = join(dir, 'trigger.pgid');
    const pgid = orphan({ LOOP_RUN_TOKEN: 'someone-else' });
    try {
      await writeFile(pidFile, JSON.stringify({ pgid, token: 'abc123' }));
      await createCommandHarness({ command: 'echo ok', cwd: dir, pidFile, graceMs: 200 }).run({
        iteration: 1,
        signal: signal(),
      });
      expect(isAlive(pgid)).toBe(true);
    } finally {
      process.kill(-pgid, 'SIGKILL');
    }
  });

  it(
    'runInGroup with pidFile records the running group (the command sees its ' +
      'LOOP_RUN_TOKEN) and removes the file when it ends',
    async () => {
      const pidFile = join(dir, 'pids', 'agent.pgid');
      const out = join(dir, 'out.log');
      const handle = await open(out, 'w');
      await runInGroup({
        command: `cat ${pidFile}; echo "token=$LOOP_RUN_TOKEN"`,
        cwd: dir,
        env: process.env,
        outputFd: handle.fd,
        killTimeoutMs: 10_000,
        graceMs: 100,
        pidFile,
      });
      await handle.close();
      const [json, tokenLine] = (await readFile(out, 'utf8')).trim().split('\n');
      const recorded = JSON.parse(json!) as { pgid: number; token: string };
      expect(tokenLine).toBe(`token=${recorded.token}`);
      await expect(readFile(pidFile, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    },
  );

  it(
    'killOrphanGroups kills every group recorded in a directory whose leader ' +
      'still carries its token, and removes the files',
    async () => {
      const pids = join(dir, 'pids');
      await mkdir(pids);
      const a = orphan({ LOOP_RUN_TOKEN: 'tok-a' });
      const b = orphan({ LOOP_RUN_TOKEN: 'tok-b' });
      await writeFile(join(pids, 'a.pgid'), JSON.stringify({ pgid: a, token: 'tok-a' }));
      await writeFile(join(pids, 'b.pgid'), JSON.stringify({ pgid: b, token: 'tok-b' }));
      expect((await killOrphanGroups(pids, 200)).sort()).toEqual([a, b].sort());
      await vi.waitFor(() => expect([isAlive(a), isAlive(b)]).toEqual([false, false]), { timeout: 5000, interval: 20 });
      expect(await readdir(pids)).toEqual([]);
    },
  );
});
